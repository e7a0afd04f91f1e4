// Admin forms: a select with data-shows-fields ({"value": ["field", ...]}) shows only the
// form rows of its chosen value; the rows of the other values are hidden, not removed, so
// the form sends their values back unchanged. A fieldset left with no row shown is hidden.
"use strict";

(function () {
  function rows(name) {
    return Array.from(document.querySelectorAll(".field-" + name)).map(
      (el) => el.closest(".form-row") || el,
    );
  }

  function apply(select, shows) {
    const chosen = new Set(shows[select.value] || []);
    const all = new Set(Object.values(shows).flat());
    const touched = new Set();
    for (const name of all) {
      for (const row of rows(name)) {
        row.hidden = !chosen.has(name);
        const fieldset = row.closest("fieldset");
        if (fieldset) touched.add(fieldset);
      }
    }
    for (const fieldset of touched) {
      const shown = fieldset.querySelectorAll(".form-row:not([hidden])");
      fieldset.hidden = shown.length === 0;
    }
  }

  function start() {
    for (const select of document.querySelectorAll("select[data-shows-fields]")) {
      const shows = JSON.parse(select.dataset.showsFields);
      select.addEventListener("change", () => apply(select, shows));
      apply(select, shows);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
