// The rating form of a project's own rubric (templates/feedback/partials/rubric_form.html):
// each question's hotkeys pick its choices in order (toggle, for several), go to its field,
// or mark the selected text of the response with a span label; Enter submits. Loaded before
// rate.js, whose keys (S, U, ?) act only on what this leaves alone.
(function () {
  "use strict";
  const form = document.getElementById("rubric-form");
  const response = document.getElementById("response-text");
  if (!form) return;
  // keys.js loads after this file, before any key is pressed: sent once, as on every page.
  function submit() {
    window.learnportalKeys.send(form);
  }
  function typing(element) {
    return element && (element.tagName === "TEXTAREA" || element.isContentEditable ||
      (element.tagName === "INPUT" && ["text", "number", "search"].indexOf(element.type) >= 0));
  }

  // ---- Spans: the selection in the response, as character offsets ----
  function offsetWithin(node, offset) {
    const range = document.createRange();
    range.setStart(response, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }
  let lastSelection = null; // a phone's selection may collapse when a label is tapped
  function selectionOffsets() {
    const selection = window.getSelection();
    if (!response || !selection || selection.isCollapsed || selection.rangeCount === 0) return null;
    const range = selection.getRangeAt(0);
    if (!response.contains(range.startContainer) || !response.contains(range.endContainer)) return null;
    const from = offsetWithin(range.startContainer, range.startOffset);
    const to = offsetWithin(range.endContainer, range.endOffset);
    return to > from ? { start: from, end: to } : null;
  }
  document.addEventListener("selectionchange", function () {
    const chosen = selectionOffsets();
    if (chosen) lastSelection = chosen;
  });

  function spansOf(fieldset) {
    const input = fieldset.querySelector(".spans-value");
    try {
      const spans = JSON.parse(input.value || "[]");
      return Array.isArray(spans) ? spans : [];
    } catch (error) {
      return [];
    }
  }
  function renderSpans(fieldset) {
    const list = fieldset.querySelector(".span-list");
    const text = response ? response.textContent : "";
    list.replaceChildren();
    spansOf(fieldset).forEach(function (span, index) {
      const item = document.createElement("li");
      const quoted = text.slice(span.start, span.end);
      item.textContent = span.label + ": “" + (quoted.length > 50 ? quoted.slice(0, 47) + "…" : quoted) +
        "” (" + span.start + "–" + span.end + ") ";
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "ghost small-button";
      remove.textContent = "Remove";
      remove.addEventListener("click", function () {
        const spans = spansOf(fieldset);
        spans.splice(index, 1);
        fieldset.querySelector(".spans-value").value = JSON.stringify(spans);
        renderSpans(fieldset);
      });
      item.appendChild(remove);
      list.appendChild(item);
    });
  }
  function mark(button) {
    const fieldset = button.closest("fieldset");
    const chosen = selectionOffsets() || lastSelection;
    if (!chosen) {
      fieldset.querySelector(".span-list").setAttribute("data-note", "Select text in the response first.");
      return;
    }
    const spans = spansOf(fieldset);
    spans.push({ start: chosen.start, end: chosen.end, label: button.dataset.label });
    fieldset.querySelector(".spans-value").value = JSON.stringify(spans);
    window.getSelection().removeAllRanges();
    lastSelection = null;
    renderSpans(fieldset);
  }
  form.querySelectorAll("fieldset[data-control=spans]").forEach(function (fieldset) {
    renderSpans(fieldset);
    fieldset.querySelectorAll(".span-mark").forEach(function (button) {
      // On pointerdown, before a tap can collapse the selection.
      button.addEventListener("pointerdown", function (event) { event.preventDefault(); });
      button.addEventListener("click", function () { mark(button); });
    });
  });

  // ---- Keys ----
  function press(key) {
    const choice = form.querySelector('[data-hotkey="' + CSS.escape(key) + '"]');
    if (choice) {
      if (choice.tagName === "BUTTON") mark(choice);
      else if (choice.type === "checkbox") choice.checked = !choice.checked;
      else choice.checked = true;
      return true;
    }
    const fieldset = Array.from(form.querySelectorAll("fieldset[data-hotkeys]")).find(function (f) {
      return f.dataset.hotkeys.indexOf(key) >= 0;
    });
    const field = fieldset && fieldset.querySelector("textarea, input[type=number]");
    if (field) {
      field.focus();
      return true;
    }
    return false;
  }
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    const dialog = document.getElementById("shortcuts");
    if (dialog && dialog.open) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
      return;
    }
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Enter") {
      const target = event.target;
      if (target && (target.tagName === "BUTTON" || target.tagName === "A")) return;
      event.preventDefault();
      submit();
      return;
    }
    if (event.key.length === 1 && press(event.key)) event.preventDefault();
  });
})();
