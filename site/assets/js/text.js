/*
 * How the site's scripts show upstream text: one helper, one policy, the same as
 * the pages' (pipeline/render/escape.py).
 *
 * Control characters become U+FFFD; invisible characters (Unicode's
 * Default_Ignorable_Code_Point: bidi controls and isolates, zero-width characters,
 * tag characters, fillers, variation selectors; and U+FFF9-FFFB) are shown as their
 * code point, "[U+202E]", so two names that differ only by one never look the same
 * and no bidi control reorders what surrounds it. explorer.js and systems.js set
 * every upstream string through ledgerText.show, always as textContent.
 *
 * RANGES must equal escape.INVISIBLE_RANGES (tests/unit/render/test_invisible.py).
 */
(function () {
  "use strict";

  var RANGES = [
    [0x00AD, 0x00AD], [0x034F, 0x034F], [0x061C, 0x061C], [0x115F, 0x1160],
    [0x17B4, 0x17B5], [0x180B, 0x180F], [0x200B, 0x200F], [0x202A, 0x202E],
    [0x2060, 0x206F], [0x3164, 0x3164], [0xFE00, 0xFE0F], [0xFEFF, 0xFEFF],
    [0xFFA0, 0xFFA0], [0xFFF0, 0xFFFB], [0x1BCA0, 0x1BCA3], [0x1D173, 0x1D17A],
    [0xE0000, 0xE0FFF]
  ];
  var CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/g;

  function hex(code) {
    var text = code.toString(16).toUpperCase();
    while (text.length < 4) text = "0" + text;
    return text;
  }

  var INVISIBLE = new RegExp(
    "[" + RANGES.map(function (r) {
      return "\\u{" + hex(r[0]) + "}-\\u{" + hex(r[1]) + "}";
    }).join("") + "]",
    "gu"
  );

  function show(value) {
    if (value === null || value === undefined) return "";
    return String(value)
      .replace(CONTROL, "\uFFFD")
      .replace(INVISIBLE, function (char) {
        return "[U+" + hex(char.codePointAt(0)) + "]";
      });
  }

  window.ledgerText = { show: show, ranges: RANGES };
})();
