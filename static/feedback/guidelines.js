// The project's guidelines beside the task (templates/feedback/partials/guidelines_panel.html):
// its key (G, in either case) opens and closes the panel, as its summary does. Like every key of
// the rating pages, it never fires while a text field has the focus, nor with the shortcuts open.
// Without this script the panel still opens and closes by its summary.
(function () {
  "use strict";
  const panel = document.getElementById("guidelines-panel");
  if (!panel) return;
  const key = panel.dataset.key;
  const summary = panel.querySelector("summary");

  function typing(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    if (element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
    if (element.tagName !== "INPUT") return false;
    return ["radio", "checkbox", "range", "button", "submit", "reset", "hidden"].indexOf(
      element.type
    ) < 0;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const dialog = document.getElementById("shortcuts");
    if (dialog && dialog.open) return;
    if (typing(event.target)) return;
    if (event.key.toLowerCase() === key) {
      event.preventDefault();
      panel.open = !panel.open;
    } else if (event.key === "Escape" && panel.open && panel.contains(event.target)) {
      panel.open = false;
      summary.focus();
    }
  });
  // On a phone the panel opens where it sits, above the task: bring it into view.
  panel.addEventListener("toggle", function () {
    if (panel.open) summary.scrollIntoView({ block: "nearest" });
  });
})();
