// The rubric builder (templates/projects/rubric.html), in the page: a question's kind shows its
// own fields; moving, adding and removing a question happen here instead of a round trip; and
// the preview frame shows the rating form of the draft, drawn by the server from the form as it
// stands (/projects/<slug>/rubric/preview/), a moment after each change. A refused draft has
// its errors put next to the question and field they name. Saving posts the form, as without
// this script, where every button posts the draft and the page comes back with it changed.
(function () {
  "use strict";
  const form = document.getElementById("rubric-builder");
  const cards = document.getElementById("rubric-cards");
  const template = document.getElementById("rubric-card-template");
  const frame = document.getElementById("rubric-preview");
  const previewStatus = document.getElementById("preview-status");
  const status = document.getElementById("builder-status");
  const pageError = document.getElementById("builder-error");
  if (!form || !cards || !frame) return;
  const WAIT = 350; // ms after the last keystroke
  let timer = null;
  let asked = 0;

  function say(text) {
    if (status) status.textContent = text;
  }
  function allCards() {
    return Array.from(cards.querySelectorAll(":scope > .rubric-card"));
  }
  function keyOf(card) {
    const input = card.querySelector(".key-field");
    return (input && input.value.trim()) || "the new question";
  }
  function renumber() {
    allCards().forEach(function (card, index) {
      card.querySelector(".card-number").textContent = index + 1 + ".";
      card.querySelector(".card-key").textContent = keyOf(card);
      card.querySelectorAll(".card-name").forEach(function (name) { name.textContent = keyOf(card); });
    });
  }

  // ---- A question's kind: only its own fields shown, and sent ----
  function showKind(card) {
    const kind = card.querySelector(".kind-select").value;
    card.querySelectorAll("fieldset.kind-fields").forEach(function (group) {
      const mine = group.dataset.kind === kind;
      group.hidden = !mine;
      group.disabled = !mine;
    });
  }

  // ---- Moving, adding, removing ----
  function move(card, how, button) {
    if (how === "up" && card.previousElementSibling) {
      cards.insertBefore(card, card.previousElementSibling);
    } else if (how === "down" && card.nextElementSibling) {
      cards.insertBefore(card.nextElementSibling, card);
    } else if (how === "remove") {
      const next = card.nextElementSibling || card.previousElementSibling;
      const name = keyOf(card);
      card.remove();
      renumber();
      const focus = next ? next.querySelector("input:not([type=hidden]), select") : document.getElementById("add-question");
      if (focus) focus.focus();
      say("Removed " + name + ".");
      refresh();
      return;
    } else {
      say(keyOf(card) + " is already " + (how === "up" ? "first." : "last."));
      return;
    }
    renumber();
    button.focus();
    say("Moved " + keyOf(card) + " to place " + (allCards().indexOf(card) + 1) + ".");
    refresh();
  }
  function nextToken() { // the smallest no card has, as the server picks it
    const taken = new Set(allCards().map(function (card) { return card.dataset.token; }));
    let token = 1;
    while (taken.has(String(token))) token += 1;
    return String(token);
  }
  function add() {
    const token = nextToken();
    const holder = document.createElement("div");
    holder.innerHTML = template.innerHTML.split("__card__").join(token);
    const card = holder.firstElementChild;
    card.querySelector(".kind-select").value = document.getElementById("add-kind").value;
    cards.appendChild(card);
    wire(card);
    showKind(card);
    renumber();
    card.querySelector(".key-field").focus();
    say("Added question " + allCards().length + ".");
    refresh();
  }
  function wire(card) {
    card.querySelector(".kind-select").addEventListener("change", function () { showKind(card); });
    card.querySelector(".key-field").addEventListener("input", renumber);
    card.querySelectorAll("[data-move]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        move(card, button.dataset.move, button);
      });
    });
  }
  allCards().forEach(wire);
  const addButton = document.getElementById("add-question");
  if (addButton && template) {
    addButton.addEventListener("click", function (event) {
      event.preventDefault();
      add();
    });
  }

  // ---- Errors: next to the question and the field they name ----
  function clearErrors() {
    form.querySelectorAll(".js-error").forEach(function (node) { node.remove(); });
    form.querySelectorAll(".js-invalid").forEach(function (node) { node.classList.remove("invalid", "js-invalid"); });
    if (pageError && pageError.classList.contains("js-error-holder")) {
      pageError.hidden = true;
      pageError.textContent = "";
    }
  }
  function note(where, text, className) {
    const line = document.createElement("p");
    line.className = className + " js-error";
    line.textContent = text;
    where.appendChild(line);
    where.classList.add("invalid", "js-invalid");
  }
  function place(error) {
    const listed = allCards();
    const unplaced = [];
    (error.details || []).forEach(function (item) {
      const loc = item.loc || [];
      const preference = loc.length === 1 && loc[0] === "preference" && form.querySelector(".preference-field");
      if (preference) {
        note(preference, item.msg, "error field-error");
        return;
      }
      const card = loc[0] === "questions" && typeof loc[1] === "number" ? listed[loc[1]] : null;
      if (!card) {
        unplaced.push(item.msg);
        return;
      }
      const field = typeof loc[2] === "string" &&
        card.querySelector(["div.card-grid", "fieldset.kind-fields:not([disabled])"].map(function (holder) {
          return holder + ' > .field[data-field="' + CSS.escape(loc[2]) + '"]';
        }).join(", "));
      if (field) note(field, item.msg, "error field-error");
      else note(card, item.msg, "error card-error");
    });
    if (unplaced.length || !(error.details || []).length) {
      pageError.textContent = unplaced.length ? unplaced.join(" ") : error.message;
      pageError.hidden = false;
      pageError.classList.add("js-error-holder");
    }
  }
  // A field's own error, from the server, goes once the field is changed.
  form.addEventListener("input", function (event) {
    const field = event.target.closest(".field");
    if (!field) return;
    field.querySelectorAll(".field-error").forEach(function (node) { node.remove(); });
    field.classList.remove("invalid");
  });

  // ---- The preview ----
  // The preview section is busy from a change until the frame shows the draft as it stands.
  const section = frame.closest(".builder-preview");
  function busy(yes) {
    section.setAttribute("aria-busy", yes ? "true" : "false");
    section.classList.toggle("stale", yes);
  }
  busy(false);
  async function preview() {
    const mine = ++asked;
    busy(true);
    let response;
    try {
      response = await fetch(form.dataset.previewUrl, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" },
      });
    } catch (failure) {
      if (mine === asked) {
        previewStatus.textContent = "The preview could not be reached; it shows the last draft it could.";
        busy(false);
      }
      return;
    }
    if (mine !== asked) return; // a newer draft is on its way
    clearErrors();
    if (response.ok) {
      const html = await response.text();
      if (mine !== asked) return;
      frame.srcdoc = html; // busy until it has loaded
      previewStatus.textContent = "";
      return;
    }
    let error = { message: "The preview was refused (" + response.status + ").", details: [] };
    try {
      error = await response.json();
    } catch (notJson) { /* keep the status */ }
    if (mine !== asked) return;
    place(error);
    previewStatus.textContent = "The preview shows the last draft without errors: fix the fields marked.";
    busy(false);
  }
  function refresh() {
    clearTimeout(timer);
    busy(true);
    timer = setTimeout(preview, WAIT);
  }
  form.addEventListener("input", refresh);
  form.addEventListener("change", refresh);
  form.addEventListener("submit", function (event) {
    const submitter = event.submitter;
    if (submitter && submitter.value === "preview") {
      event.preventDefault();
      clearTimeout(timer);
      preview();
    }
  });

  // The frame as tall as the form it shows, as that grows (marked spans, an error).
  function fit() {
    const shown = frame.contentDocument && frame.contentDocument.querySelector("main");
    if (shown) frame.style.height = Math.ceil(shown.getBoundingClientRect().bottom) + 4 + "px";
  }
  frame.addEventListener("load", function () {
    busy(false);
    fit();
    const body = frame.contentDocument && frame.contentDocument.body;
    if (body && window.ResizeObserver) new ResizeObserver(fit).observe(body);
  });
  fit();
})();
