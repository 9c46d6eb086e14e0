// The rubric builder's preview frame (templates/projects/rubric_preview.html): the rating form
// works as on the rating page (rubric.js, rate.js), but submitting sends nothing; it says what
// a rating would carry. Loaded first, so that it hears the submit before rubric.js does.
(function () {
  "use strict";
  const said = document.getElementById("preview-sent");
  const shortcuts = document.getElementById("shortcuts");
  // The frame is as tall as its form: its shortcuts list opens at the frame's top (the
  // builder's stylesheet), brought into the window.
  if (shortcuts && window.frameElement) {
    new MutationObserver(function () {
      if (shortcuts.open) window.frameElement.scrollIntoView({ block: "start" });
    }).observe(shortcuts, { attributes: true, attributeFilter: ["open"] });
  }
  window.addEventListener("submit", function (event) {
    if (event.target.id !== "rubric-form") return; // the shortcuts list closes as it does
    event.preventDefault();
    event.stopImmediatePropagation();
    const answers = [];
    new FormData(event.target).forEach(function (value, name) {
      if (name.indexOf("q-") !== 0 || value === "" || value === "[]") return;
      answers.push(name.slice(2) + " = " + value);
    });
    if (said) {
      said.textContent = answers.length
        ? "A preview sends nothing. This rating would answer: " + answers.join("; ") + "."
        : "A preview sends nothing. This rating answers no question yet.";
    }
  }, true);
})();
