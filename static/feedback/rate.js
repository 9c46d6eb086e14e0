// Rating page: show the score, and turn a text selection in the response into a correction span.
// Without this script the form still works; the span is simply left empty.
(function () {
  "use strict";
  const form = document.getElementById("rating-form");
  const response = document.getElementById("response-text");
  if (!form || !response) return;

  const score = form.querySelector("input[name=score]");
  const scoreValue = document.getElementById("score-value");
  const start = form.querySelector("input[name=span_start]");
  const end = form.querySelector("input[name=span_end]");
  const label = document.getElementById("span-label");
  const clear = document.getElementById("span-clear");
  const original = response.textContent;

  function showScore() {
    scoreValue.textContent = Number(score.value).toFixed(1);
  }
  score.addEventListener("input", showScore);
  showScore();

  // The server counts characters (code points); the DOM counts UTF-16 units.
  function codePoints(units) {
    return Array.from(original.slice(0, units)).length;
  }

  function offsetWithin(node, offset) {
    const range = document.createRange();
    range.setStart(response, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  function highlight(from, to) {
    // Rebuild the response from text nodes only: no markup from the page's data.
    response.replaceChildren();
    if (from === null) {
      response.append(document.createTextNode(original));
      return;
    }
    const mark = document.createElement("mark");
    mark.textContent = original.slice(from, to);
    response.append(
      document.createTextNode(original.slice(0, from)),
      mark,
      document.createTextNode(original.slice(to))
    );
  }

  function setSpan(from, to) {
    if (from === null) {
      start.value = "";
      end.value = "";
      label.textContent = "none (select text in the response)";
      clear.hidden = true;
    } else {
      start.value = String(codePoints(from));
      end.value = String(codePoints(to));
      const quoted = original.slice(from, to);
      label.textContent =
        "characters " + start.value + "–" + end.value + ": “" +
        (quoted.length > 60 ? quoted.slice(0, 57) + "…" : quoted) + "”";
      clear.hidden = false;
    }
    highlight(from, to);
  }

  function takeSelection() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return;
    const range = selection.getRangeAt(0);
    if (!response.contains(range.startContainer) || !response.contains(range.endContainer)) return;
    const from = offsetWithin(range.startContainer, range.startOffset);
    const to = offsetWithin(range.endContainer, range.endOffset);
    if (to <= from) return;
    selection.removeAllRanges();
    setSpan(from, to);
  }

  document.addEventListener("mouseup", takeSelection);
  response.addEventListener("keyup", takeSelection);
  clear.addEventListener("click", function () { setSpan(null, null); });

  // A span the server sent back (after an error) is shown again.
  if (start.value !== "" && end.value !== "") {
    const units = Array.from(original);
    const from = units.slice(0, Number(start.value)).join("").length;
    const to = units.slice(0, Number(end.value)).join("").length;
    if (from >= 0 && to >= from && to <= original.length) setSpan(from, to);
  }

  // Corrective feedback needs a correction: point at the field when that polarity is chosen.
  const correction = form.querySelector("textarea[name=correction]");
  function markRequired() {
    const chosen = form.querySelector("input[name=polarity]:checked");
    correction.classList.toggle("needed", !!chosen && chosen.value === "corrective");
  }
  form.querySelectorAll("input[name=polarity]").forEach(function (radio) {
    radio.addEventListener("change", markRequired);
  });
  markRequired();

  // An error the server showed for the correction goes away once there is one.
  correction.addEventListener("input", function () {
    form.querySelectorAll("[data-field=correction]").forEach(function (error) {
      error.hidden = correction.value.trim() !== "";
    });
  });
})();
