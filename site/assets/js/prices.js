/*
 * The model pages' price input: $ per million tokens from the reader's price.
 *
 * A model page (pipeline/render/model_pages.py) carries a hidden form with one input
 * per accelerator (data-price-key: a slug of ours) and, in each ranking row, a
 * <span class="ledger-cost" data-price-key data-hours> holding "—". This script
 * shows the form and fills each span with price × accelerator-hours per million
 * tokens (derived, not an MLPerf result). No price is built in.
 *
 * Prices live in the address (?price=nvidia-gb300:10.5;nvidia-vera-rubin:30), so a
 * link reproduces them, and in localStorage, used when the address names none. A
 * price must be a positive finite number and its key an accelerator of the page:
 * anything else is ignored and named in the form's note. Numbers are set as
 * textContent only. In mkdocs.yml's extra_javascript like the other page scripts:
 * it does nothing where there is no [data-ledger-prices] form; ledgerOnPage
 * (material.js) runs it for the page as loaded and after every instant navigation.
 *
 * The electricity price ($ per kWh) sits beside them in the address (&kwh=0.12)
 * and in storage: each <small class="ledger-energy-cost" data-kwh> (results with
 * MLPerf-measured power only) shows kWh per million × that price. The Explorer
 * (explorer.js) reads and writes the same address and storage through
 * window.ledgerPrices, so a link shares the same assumptions there.
 */
(function () {
  "use strict";

  var PARAM = "price";
  var STORE = "ledger-prices";
  var KWH_PARAM = "kwh";
  var KWH_STORE = "ledger-electricity";
  var KEY = /^[a-z0-9-]+$/;
  var NUMBER = /^\s*\d*\.?\d+(?:e[-+]?\d+)?\s*$/i;
  var MONEY = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 6 });
  var NO_PRICE = "\u2014";
  /* Text from the address is shown through the site's one helper (text.js). */
  var show = window.ledgerText ? window.ledgerText.show : String;

  /* A positive finite number from text, or null. */
  function price(text) {
    if (typeof text !== "string" || !NUMBER.test(text)) return null;
    var value = parseFloat(text);
    return isFinite(value) && value > 0 ? value : null;
  }

  /* Whether a key is an accelerator of the page: an object of keys or a function. */
  function has(known, key) {
    return typeof known === "function" ? known(key) : Object.prototype.hasOwnProperty.call(known, key);
  }

  /* {key: price} from the address, and what it held that was refused. */
  function fromAddress(known) {
    var raw = new URLSearchParams(window.location.search).get(PARAM);
    var prices = {};
    var refused = [];
    if (raw === null) return null;
    raw.split(";").forEach(function (part) {
      if (!part) return;
      var at = part.lastIndexOf(":");
      var key = at < 0 ? part : part.slice(0, at);
      var value = at < 0 ? null : price(part.slice(at + 1));
      if (!KEY.test(key) || !has(known, key)) refused.push(part + " (no such accelerator on this page)");
      else if (value === null) refused.push(part + " (not a positive number)");
      else prices[key] = value;
    });
    return { prices: prices, refused: refused };
  }

  /* The electricity price from the address: {value} or {refused}; null: none. */
  function kwhFromAddress() {
    var raw = new URLSearchParams(window.location.search).get(KWH_PARAM);
    if (raw === null) return null;
    var value = price(raw);
    return value === null
      ? { value: null, refused: [KWH_PARAM + "=" + raw + " (not a positive number)"] }
      : { value: value, refused: [] };
  }

  function kwhFromStorage() {
    try {
      return price(String(window.localStorage.getItem(KWH_STORE)));
    } catch (error) {
      return null;
    }
  }

  function rememberKwh(value) {
    try {
      if (value === null) window.localStorage.removeItem(KWH_STORE);
      else window.localStorage.setItem(KWH_STORE, String(value));
    } catch (error) {
      /* Storage off: the address still keeps the price. */
    }
  }

  function fromStorage(known) {
    var prices = {};
    try {
      var stored = JSON.parse(window.localStorage.getItem(STORE) || "{}");
      Object.keys(stored).forEach(function (key) {
        var value = price(String(stored[key]));
        if (has(known, key) && value !== null) prices[key] = value;
      });
    } catch (error) {
      /* Storage off or unreadable: prices come from the address only. */
    }
    return prices;
  }

  function remember(prices) {
    try {
      var stored = JSON.parse(window.localStorage.getItem(STORE) || "{}");
      if (typeof stored !== "object" || stored === null) stored = {};
      Object.keys(prices.__page).forEach(function (key) { delete stored[key]; });
      Object.keys(prices.values).forEach(function (key) { stored[key] = prices.values[key]; });
      window.localStorage.setItem(STORE, JSON.stringify(stored));
    } catch (error) {
      /* Storage off: the address still keeps the prices. */
    }
  }

  /* The address with these prices (and electricity price, null: none). */
  function withPrices(href, values, kwh) {
    var parts = Object.keys(values).sort().map(function (key) {
      return key + ":" + String(values[key]);
    });
    var url = new URL(href);
    if (parts.length) url.searchParams.set(PARAM, parts.join(";"));
    else url.searchParams.delete(PARAM);
    if (kwh !== null && kwh !== undefined) url.searchParams.set(KWH_PARAM, String(kwh));
    else url.searchParams.delete(KWH_PARAM);
    return url.toString();
  }

  function writeAddress(values, kwh) {
    var url = withPrices(window.location.href, values, kwh);
    window.history.replaceState(window.history.state, "", url);
  }

  function fillEnergy(root, kwh) {
    root.querySelectorAll(".ledger-energy-cost[data-kwh]").forEach(function (cell) {
      var energy = parseFloat(cell.getAttribute("data-kwh"));
      if (kwh === null || !isFinite(energy)) {
        cell.textContent = NO_PRICE;
        cell.removeAttribute("data-cost");
        return;
      }
      var cost = kwh * energy;
      cell.textContent = "$" + MONEY.format(cost) + " electricity";
      cell.setAttribute("data-cost", String(cost));
    });
  }

  function fill(root, values) {
    root.querySelectorAll(".ledger-cost[data-price-key]").forEach(function (cell) {
      var value = values[cell.getAttribute("data-price-key")];
      var hours = parseFloat(cell.getAttribute("data-hours"));
      if (value === undefined || !isFinite(hours)) {
        cell.textContent = NO_PRICE;
        cell.removeAttribute("data-cost");
        return;
      }
      var cost = value * hours;
      cell.textContent = "$" + MONEY.format(cost);
      cell.setAttribute("data-cost", String(cost));
    });
  }

  function start() {
    var form = document.querySelector("form[data-ledger-prices]");
    if (!form || form.__ledgerPrices) return;
    form.__ledgerPrices = true;
    var root = form.closest("article") || document;
    var note = form.querySelector(".ledger-prices__note");
    var inputs = {};
    form.querySelectorAll("input[data-price-key]").forEach(function (input) {
      inputs[input.getAttribute("data-price-key")] = input;
    });
    var electricity = form.querySelector("input[data-electricity]");
    var state = { __page: inputs, values: {}, kwh: null };
    var given = fromAddress(inputs);
    state.values = given ? given.prices : fromStorage(inputs);
    Object.keys(state.values).forEach(function (key) {
      inputs[key].value = String(state.values[key]);
    });
    var refused = given ? given.refused.slice() : [];
    if (electricity) {
      var kwhGiven = kwhFromAddress();
      state.kwh = kwhGiven ? kwhGiven.value : kwhFromStorage();
      if (kwhGiven) refused = refused.concat(kwhGiven.refused);
      if (state.kwh !== null) electricity.value = String(state.kwh);
    }
    note.textContent = refused.length
      ? "Ignored from the address: " + show(refused.join("; ")) + "."
      : "";
    form.hidden = false;
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("change", function (event) {
      var input = event.target;
      if (electricity && input === electricity) {
        var entered = input.value.trim();
        var kwh = entered === "" ? null : price(entered);
        if (entered !== "" && kwh === null) {
          note.textContent = "Ignored: \u201c" + show(entered) + "\u201d is not a positive number.";
          return;
        }
        note.textContent = "";
        state.kwh = kwh;
        writeAddress(state.values, state.kwh);
        rememberKwh(state.kwh);
        fillEnergy(root, state.kwh);
        return;
      }
      var key = input.getAttribute && input.getAttribute("data-price-key");
      if (!key || !inputs[key]) return;
      var text = input.value.trim();
      if (text === "") {
        delete state.values[key];
        note.textContent = "";
      } else {
        var value = price(text);
        if (value === null) {
          note.textContent = "Ignored: \u201c" + show(text) + "\u201d is not a positive number.";
          return;
        }
        state.values[key] = value;
        note.textContent = "";
      }
      writeAddress(state.values, electricity ? state.kwh : kwhOfAddress());
      remember(state);
      fill(root, state.values);
    });
    fill(root, state.values);
    fillEnergy(root, state.kwh);
  }

  /* The address's electricity price as written, kept when this page has no input. */
  function kwhOfAddress() {
    return new URLSearchParams(window.location.search).get(KWH_PARAM);
  }

  /* For the Explorer: the same address and storage, for any accelerator key. */
  window.ledgerPrices = {
    price: price,
    /* {values, kwh, refused}: from the address where it names prices, else storage.
       known(key) says whether a key is an accelerator of the page. */
    read: function (known) {
      var given = fromAddress(known);
      var kwhGiven = kwhFromAddress();
      return {
        values: given ? given.prices : fromStorage(known),
        kwh: kwhGiven ? kwhGiven.value : kwhFromStorage(),
        refused: (given ? given.refused : []).concat(kwhGiven ? kwhGiven.refused : []),
      };
    },
    /* The address with these prices, for a page that writes its own address. */
    withPrices: withPrices,
    /* Remember them in this browser (the keys of ``page`` are this page's). */
    remember: function (page, values, kwh) {
      remember({ __page: page, values: values });
      rememberKwh(kwh);
    },
  };

  window.ledgerOnPage(start);  // material.js
})();
