/*
 * Charts: shown at once as their build-time SVG, made interactive on demand.
 *
 * A chart container is <div class="vega-chart" data-spec="../charts/name.json"> holding
 * <img class="vega-static"> (the chart as the build drew it) and a hidden "Interactive
 * chart" button; the spec path is relative to the page. Nothing is compiled on load: a
 * phone shows the picture without running Vega. When a reader reaches for a chart
 * (pointer over it, a touch, focus or the button), the Vega bundle (~900 KB, once per
 * visit) is loaded and that chart is drawn with vega-embed over its picture: values on
 * hover, points that link to their results. If that fails, the picture stays.
 *
 * Data files named in a spec ("data/name.json") are resolved against the spec's folder,
 * so specs stay valid wherever a page lives. Material's instant navigation swaps page
 * content without reloading scripts; ledgerOnPage (material.js) runs prepareAll for
 * the page as loaded and after every swap.
 */
(function () {
  "use strict";

  var EMBED_OPTIONS = {
    renderer: "svg",
    // No action menu: its "open in editor" would send the spec to vega.github.io,
    // and every chart already links its Vega-Lite JSON below it.
    actions: false,
  };

  // Resolved against this script's own URL (assets/js/charts.js), so it works from
  // every page, whatever its folder.
  var BUNDLE_URL = document.currentScript
    ? new URL("../../generated/assets/js/vega-bundle.js", document.currentScript.src).href
    : null;
  var bundleLoading = null;

  function loadBundle() {
    if (typeof window.vegaEmbed === "function") return Promise.resolve();
    if (!bundleLoading) {
      bundleLoading = new Promise(function (resolve, reject) {
        if (!BUNDLE_URL) throw new Error("the Vega bundle's address is unknown");
        var script = document.createElement("script");
        script.src = BUNDLE_URL;
        script.onload = function () {
          if (typeof window.vegaEmbed === "function") resolve();
          else reject(new Error("the Vega bundle did not load"));
        };
        script.onerror = function () {
          bundleLoading = null;  // a later page may try again
          reject(new Error("the Vega bundle did not load"));
        };
        document.head.appendChild(script);
      });
    }
    return bundleLoading;
  }

  /* Below this container width (px), legends and long axis labels are fitted to it. */
  var NARROW = 600;

  /* A phone's chart (390 px: a 358 px container) cut long legend labels and names on
     its y axis at the edge, and pushed the axis title out: there, a y axis's names
     get at most 45% of the width, and legend labels what is left beside the plot's
     start (a bottom legend starts where the plot does, after those names). Vega
     ends a cut label with "…"; the tooltip has it whole. The data is never walked. */
  function walkSpec(node, visit, channel) {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach(function (child) { walkSpec(child, visit, channel); });
      return;
    }
    Object.keys(node).forEach(function (key) {
      if (key === "data" || key === "datasets" || key === "values") return;
      var value = node[key];
      if (value && typeof value === "object" && !Array.isArray(value) &&
          visit(key, value, channel)) return;
      walkSpec(value, visit, key === "y" || key === "x" ? key : channel);
    });
  }

  function fitToWidth(spec, width) {
    var names = Math.round(width * 0.45);
    var namedY = false;
    walkSpec(spec, function (key, value, channel) {
      if (key !== "axis" || channel !== "y" || !("labelLimit" in value)) return false;
      if (!value.labelLimit || value.labelLimit > names) value.labelLimit = names;
      namedY = true;
      return true;
    }, null);
    var most = (namedY ? width - names : width - 60) - 40;
    walkSpec(spec, function (key, value) {
      if (key !== "legend") return false;
      if (!value.labelLimit || value.labelLimit > most) value.labelLimit = most;
      return true;
    }, null);
  }

  function fail(el, message) {
    el.classList.add("vega-chart--error");
    el.textContent = "Chart could not be drawn: " + message;
  }

  function failBeside(el, message) {
    // The picture stays; a line under it says the interactive chart is not there.
    var note = document.createElement("p");
    note.className = "vega-chart__note";
    note.textContent = "The interactive chart could not be drawn (" + message +
      "); the picture and the data links below still hold every number.";
    el.appendChild(note);
  }

  function embed(el) {
    var state = el.getAttribute("data-state");
    if (state && state !== "static") return;
    el.setAttribute("data-state", "loading");
    var image = el.querySelector("img.vega-static");
    var button = el.querySelector("button.vega-activate");
    var specUrl = new URL(el.getAttribute("data-spec"), document.baseURI);
    var target = document.createElement("div");
    loadBundle()
      .then(function () { return fetch(specUrl); })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " for " + specUrl.pathname);
        return response.json();
      })
      .then(function (spec) {
        var options = Object.assign({}, EMBED_OPTIONS, {
          loader: { baseURL: new URL(".", specUrl).href },
        });
        var width = el.clientWidth;
        if (width && width < NARROW) fitToWidth(spec, width);
        // Into a child: Vega gives its container the chart's own role and label
        // (graphics-document, the spec's description), and the container is the
        // page's figure, named by its caption and described by the line under it.
        // Drawn out of sight over the picture, which goes once the chart is there.
        if (image) target.className = "vega-chart__drawing";
        el.appendChild(target);
        return window.vegaEmbed(target, spec, options);
      })
      .then(function () {
        if (image) (image.closest("picture") || image).remove();
        if (button) button.remove();
        target.className = "";
        el.setAttribute("data-state", "rendered");
      })
      .catch(function (error) {
        el.setAttribute("data-state", "failed");
        target.remove();
        if (image) failBeside(el, error.message);
        else fail(el, error.message);
        console.error("vega-chart", specUrl.href, error);
      });
  }

  var REACH = ["pointerenter", "touchstart", "focusin"];

  function prepare(el) {
    if (el.getAttribute("data-state")) return;
    if (!el.querySelector("img.vega-static")) {
      embed(el);  // no picture to show first: draw at once
      return;
    }
    el.setAttribute("data-state", "static");
    function reach() {
      REACH.forEach(function (name) { el.removeEventListener(name, reach); });
      embed(el);
    }
    REACH.forEach(function (name) {
      el.addEventListener(name, reach, { passive: true });
    });
    var button = el.querySelector("button.vega-activate");
    if (button) button.hidden = false;  // focus reaches it (focusin above)
  }

  function prepareAll() {
    document.querySelectorAll("div.vega-chart[data-spec]").forEach(prepare);
  }

  window.ledgerOnPage(prepareAll);  // material.js
})();
