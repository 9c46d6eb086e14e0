// Rating a turn, keyboard first: the rating page (/turns/<pk>/) and the queue (/queue/).
// 1-4 polarity, Left/Right score, R focuses the response (Shift+arrows select the span to
// correct), C correction, M comment, Enter submits, S skips, U undoes, ? lists them all.
// Shortcuts never fire while a text field has the focus; Esc leaves the field.
// Without this script the forms still work: the span is simply left empty.
(function () {
  "use strict";
  const skipForm = document.getElementById("skip-form");
  const undoForm = document.getElementById("undo-form");

  const shared = window.learnportalKeys;
  const say = shared.say;

  const send = shared.send;

  // ---- The rating form, where there is one (the queue may be empty) ----
  const rating = (function () {
    const form = document.getElementById("rating-form");
    if (!form) return null;
    // A session has no one response to mark (its turns are the text): an empty stand-in keeps
    // the span code below inert.
    const response = document.getElementById("response-text") || document.createElement("div");

    const score = form.querySelector("input[name=score]");
    const scoreValue = document.getElementById("score-value");
    const start = form.querySelector("input[name=span_start]");
    const end = form.querySelector("input[name=span_end]");
    const label = document.getElementById("span-label");
    const clear = document.getElementById("span-clear");
    const use = document.getElementById("span-use");
    const correction = form.querySelector("textarea[name=correction]");
    const comment = form.querySelector("textarea[name=comment]");
    const polarities = Array.from(form.querySelectorAll("input[name=polarity]"));
    const original = response.textContent;

    // ---- Score: the slider, the arrows, and a value that follows the polarity until set ----
    // Whether the person set the score travels with the form (score_set), so that after a
    // refused submit the polarity keys still set it exactly as they did before.
    const SUGGESTED = { positive: 1, negative: -1, neutral: 0, corrective: -0.5 };
    const scoreSetField = form.querySelector("input[name=score_set]");
    let scoreSet = scoreSetField.value === "1";
    function markScoreSet() {
      scoreSet = true;
      scoreSetField.value = "1";
    }

    function showScore() {
      scoreValue.textContent = Number(score.value).toFixed(1);
    }
    function setScore(value) {
      const clamped = Math.max(-1, Math.min(1, Math.round(value * 10) / 10));
      score.value = String(clamped);
      showScore();
    }
    score.addEventListener("input", function () {
      markScoreSet();
      showScore();
    });
    showScore();

    // ---- Polarity ----
    const correctionNeeded = function () {
      const chosen = form.querySelector("input[name=polarity]:checked");
      correction.classList.toggle("needed", !!chosen && chosen.value === "corrective");
    };
    function choosePolarity(index) {
      const radio = polarities[index];
      if (!radio) return;
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
    polarities.forEach(function (radio) {
      radio.addEventListener("change", function () {
        if (!scoreSet && radio.value in SUGGESTED) setScore(SUGGESTED[radio.value]);
        correctionNeeded();
      });
    });
    correctionNeeded();

    // ---- The correction span: offsets into the response's text ----
    // The server counts characters (code points); the DOM counts UTF-16 units. Offsets here are
    // units, and become code points only in the form's fields.
    let spanFrom = null;
    let spanTo = null;
    let caret = 0;
    let anchor = null;
    let caretShown = false;

    function codePoints(units) {
      return Array.from(original.slice(0, units)).length;
    }
    function isHigh(unit) {
      return unit >= 0xd800 && unit <= 0xdbff;
    }
    function isLow(unit) {
      return unit >= 0xdc00 && unit <= 0xdfff;
    }
    function nextPos(at) {
      if (at >= original.length) return original.length;
      return isHigh(original.charCodeAt(at)) && at + 1 < original.length ? at + 2 : at + 1;
    }
    function prevPos(at) {
      if (at <= 0) return 0;
      return at >= 2 && isLow(original.charCodeAt(at - 1)) && isHigh(original.charCodeAt(at - 2))
        ? at - 2
        : at - 1;
    }
    function nextWord(at) {
      let to = at;
      while (to < original.length && /\s/.test(original[to])) to += 1;
      while (to < original.length && !/\s/.test(original[to])) to += 1;
      return to;
    }
    function prevWord(at) {
      let to = at;
      while (to > 0 && /\s/.test(original[to - 1])) to -= 1;
      while (to > 0 && !/\s/.test(original[to - 1])) to -= 1;
      return to;
    }

    function render() {
      // Rebuilt from text nodes only: no markup from the page's data.
      const at = caretShown ? caret : -1;
      const cuts = [0, original.length, at];
      if (spanFrom !== null) cuts.push(spanFrom, spanTo);
      const points = Array.from(new Set(cuts.filter(function (n) { return n >= 0; })));
      points.sort(function (a, b) { return a - b; });
      const nodes = [];
      points.forEach(function (point, i) {
        if (point === at) {
          const mark = document.createElement("span");
          mark.className = "caret";
          mark.setAttribute("aria-hidden", "true");
          nodes.push(mark);
        }
        const next = points[i + 1];
        if (next === undefined || next === point) return;
        const text = original.slice(point, next);
        if (spanFrom !== null && point >= spanFrom && next <= spanTo) {
          const mark = document.createElement("mark");
          mark.textContent = text;
          nodes.push(mark);
        } else {
          nodes.push(document.createTextNode(text));
        }
      });
      response.replaceChildren.apply(response, nodes);
    }

    function setSpan(from, to) {
      if (from === null || to <= from) {
        spanFrom = spanTo = null;
        start.value = "";
        end.value = "";
        label.textContent = "none (select text in the response)";
        clear.hidden = true;
      } else {
        spanFrom = from;
        spanTo = to;
        start.value = String(codePoints(from));
        end.value = String(codePoints(to));
        const quoted = original.slice(from, to);
        label.textContent =
          "characters " + start.value + "–" + end.value + ": “" +
          (quoted.length > 60 ? quoted.slice(0, 57) + "…" : quoted) + "”";
        clear.hidden = false;
      }
      render();
    }

    function offsetWithin(node, offset) {
      const range = document.createRange();
      range.setStart(response, 0);
      range.setEnd(node, offset);
      return range.toString().length;
    }

    // The selection inside the response, as offsets; null when there is none there.
    function selectionOffsets() {
      const selection = window.getSelection();
      if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
      const range = selection.getRangeAt(0);
      const inside = response.contains(range.startContainer) &&
        response.contains(range.endContainer);
      if (!inside) return null;
      const from = offsetWithin(range.startContainer, range.startOffset);
      const to = offsetWithin(range.endContainer, range.endOffset);
      return to > from ? { from: from, to: to } : null;
    }
    function takeSpan(chosen) {
      window.getSelection().removeAllRanges();
      anchor = chosen.from;
      caret = chosen.to;
      setSpan(chosen.from, chosen.to);
      pending = null;
      use.hidden = true;
    }
    function takeSelection() {
      const chosen = selectionOffsets();
      if (chosen) takeSpan(chosen);
    }
    document.addEventListener("mouseup", takeSelection);
    // A phone selects by a long press and its handles, and sends no mouseup: each change of
    // the selection is kept, and "Use selection" takes it (the tap on it may have collapsed
    // the selection already, so the last one made in the response is what it takes).
    let pending = null;
    document.addEventListener("selectionchange", function () {
      const chosen = selectionOffsets();
      if (!chosen) return;
      pending = chosen;
      use.hidden = false;
    });
    use.addEventListener("click", function () {
      if (pending) takeSpan(pending);
    });
    clear.addEventListener("click", function () { setSpan(null, null); });

    // By keyboard: a caret of our own in the focused response; Shift extends from where it was.
    function showCaret() {
      caretShown = true;
      render();
    }
    response.addEventListener("focus", function () {
      // Not on a mouse click: re-rendering under the pointer would end a drag selection.
      if (response.matches(":focus-visible")) showCaret();
    });
    response.addEventListener("blur", function () {
      caretShown = false;
      anchor = null;
      render();
    });

    function responseKey(event) {
      const moves = {
        ArrowRight: event.ctrlKey || event.altKey ? nextWord : nextPos,
        ArrowLeft: event.ctrlKey || event.altKey ? prevWord : prevPos,
        Home: function () { return 0; },
        End: function () { return original.length; },
      };
      if (event.key === "Escape") {
        if (spanFrom === null) return false;
        setSpan(null, null);
        say("Span cleared.");
        return true;
      }
      const move = moves[event.key];
      if (!move) return false;
      if (event.shiftKey) {
        if (anchor === null) anchor = caret;
        caret = move(caret);
        caretShown = true;
        setSpan(Math.min(anchor, caret), Math.max(anchor, caret));
      } else {
        anchor = null;
        caret = move(caret);
        showCaret();
      }
      return true;
    }

    // A span the server sent back (after an error) is shown again.
    if (start.value !== "" && end.value !== "") {
      const units = Array.from(original);
      const from = units.slice(0, Number(start.value)).join("").length;
      const to = units.slice(0, Number(end.value)).join("").length;
      if (from >= 0 && to > from && to <= original.length) {
        caret = to;
        setSpan(from, to);
      }
    }

    // An error the server showed for the correction goes away once there is one.
    correction.addEventListener("input", function () {
      form.querySelectorAll("[data-field=correction]").forEach(function (error) {
        error.hidden = correction.value.trim() !== "";
      });
    });

    // Keys of the rating itself; true when the key was one of them.
    function keys(event) {
      const target = event.target;
      if (target === response && responseKey(event)) return true;
      if (event.ctrlKey || event.metaKey || event.altKey) return false;
      const step = event.shiftKey ? 0.5 : 0.1;
      switch (event.key) {
        case "1": case "2": case "3": case "4":
          choosePolarity(Number(event.key) - 1);
          return true;
        case "ArrowLeft": case "ArrowRight":
          if (target && target.type === "radio") return false; // the group's own keys
          markScoreSet();
          setScore(Number(score.value) + (event.key === "ArrowLeft" ? -step : step));
          return true;
        case "Enter":
          send(form);
          return true;
        case "r": case "R":
          response.focus();
          showCaret();
          return true;
        case "c": case "C":
          correction.focus();
          return true;
        case "m": case "M":
          comment.focus();
          return true;
        default:
          return false;
      }
    }

    // Where the focus starts, after a refused submit as before it: the score. Every key then
    // means what it meant before the error (a focused radio would take the arrows for its own,
    // a focused text field the digits); the refusals are read out with the score.
    function focusStart() {
      const said = [];
      form.querySelectorAll(".field-error[data-field]").forEach(function (error, i) {
        if (!error.id) error.id = "refused-" + i;
        said.push(error.id);
      });
      if (said.length) score.setAttribute("aria-describedby", said.join(" "));
      score.focus({ preventScroll: !said.length });
    }

    return {
      keys: keys,
      focusStart: focusStart,
      submit: function () { send(form); },
      home: function () { score.focus({ preventScroll: true }); },
    };
  })();

  // ---- Undo, within the minute the server allows ----
  let undoUntil = undoForm ? Number(undoForm.dataset.until) * 1000 : 0;
  if (undoForm && undoUntil) {
    window.setTimeout(function () {
      undoForm.hidden = true;
      undoUntil = 0;
    }, Math.max(0, undoUntil - Date.now()));
  }
  function undo() {
    if (undoForm && undoUntil > Date.now()) send(undoForm);
    else say("Nothing to undo: only your last rating can be undone, within a minute.");
  }

  // ---- Keys ----
  const typing = shared.typing;
  const pressable = shared.pressable;
  const queue = !!(skipForm || undoForm || document.getElementById("queue-page"));

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (shared.shortcutsOpen()) return; // the dialog closes itself on Esc
    const target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && rating) {
      event.preventDefault();
      rating.submit();
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape" && rating) {
        target.blur();
        rating.home();
      }
      return;
    }
    if (event.key === "Enter" && pressable(target)) return;
    if (rating && rating.keys(event)) {
      event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return; // the browser's own
    let done = true;
    switch (event.key) {
      case "s": case "S":
        if (skipForm) send(skipForm);
        else done = false;
        break;
      case "u": case "U":
        if (queue) undo();
        else done = false;
        break;
      case "?":
        shared.openShortcuts();
        break;
      default:
        done = false;
    }
    if (done) event.preventDefault();
  });

  if (rating) rating.focusStart();
})();
