// The import page's progress bar: post the column mapping one batch at a time (`step`), and
// show each answer, the server's own progress and report, until every row is read. Without
// this script the form posts once and the server imports the whole file.
(() => {
  "use strict";
  const form = document.getElementById("import-mapping");
  const panel = document.getElementById("import-progress");
  if (!form || !panel) return;
  const button = document.getElementById("import-run");

  async function step() {
    const data = new FormData(form);
    data.set("step", "1");
    const response = await fetch(form.action || window.location.href, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" },
    });
    if (!response.ok) {
      // A refused mapping (or anything else): the whole page says why, next to its field.
      form.removeEventListener("submit", start);
      form.submit();
      return null;
    }
    panel.innerHTML = await response.text();
    const state = panel.querySelector(".import-state");
    return state && state.dataset.finished === "1";
  }

  async function start(event) {
    event.preventDefault();
    if (button) button.disabled = true;
    form.setAttribute("aria-busy", "true");
    let finished = false;
    while (finished === false) finished = await step();
    form.removeAttribute("aria-busy");
  }

  form.addEventListener("submit", start);
})();
