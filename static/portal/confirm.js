// A form with data-confirm asks in the page before it is sent: revoking, deactivating,
// rolling back, removing. data-confirm is a question and what follows it ("Revoke x? Whatever
// uses it is refused."): the question heads a modal <dialog>, the rest explains, and its
// confirming button says what the form's own button says. Focus starts on Cancel and stays in
// the dialog; Escape or Cancel sends nothing and gives focus back to the button pressed.
// Without JavaScript (or <dialog>) the form is sent unasked, as the server accepts it anyway.
"use strict";
(function () {
  const dialog = document.createElement("dialog");
  if (typeof dialog.showModal !== "function") return;
  dialog.className = "confirm-dialog";
  dialog.setAttribute("role", "alertdialog");
  dialog.setAttribute("aria-labelledby", "confirm-dialog-title");
  dialog.setAttribute("aria-describedby", "confirm-dialog-text");
  const choice = document.createElement("form");
  choice.method = "dialog";
  const title = element("h2", "confirm-dialog-title");
  const text = element("p", "confirm-dialog-text");
  const actions = element("div");
  actions.className = "confirm-actions";
  const cancel = button("cancel", "Cancel", "ghost");
  const go = button("confirm", "", "danger");
  actions.append(cancel, go);
  choice.append(title, text, actions);
  dialog.append(choice);

  const confirmed = new WeakSet();
  let asking = null; // the form and the button that sent it, while the dialog is open

  function element(tag, id) {
    const el = document.createElement(tag);
    if (id) el.id = id;
    return el;
  }
  function button(value, label, className) {
    const el = document.createElement("button");
    el.value = value;
    el.textContent = label;
    el.className = className;
    return el;
  }
  function question(asked) {
    const parts = /^(.*?\?)\s+(.*)$/s.exec(asked);
    return parts ? [parts[1], parts[2]] : [asked, ""];
  }

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
    if (confirmed.has(form)) { confirmed.delete(form); return; }
    event.preventDefault();
    const [heading, detail] = question(form.dataset.confirm);
    title.textContent = heading;
    text.textContent = detail;
    text.hidden = !detail;
    go.textContent = (event.submitter && event.submitter.textContent.trim()) || "Confirm";
    asking = { form: form, submitter: event.submitter };
    if (!dialog.isConnected) document.body.append(dialog);
    dialog.returnValue = "";
    dialog.showModal();
    cancel.focus();
  });

  // A modal dialog lets Tab leave for the browser's own controls; keep it on the two answers.
  dialog.addEventListener("keydown", function (event) {
    if (event.key !== "Tab") return;
    const edge = event.shiftKey ? cancel : go;
    if (document.activeElement === edge) {
      event.preventDefault();
      (event.shiftKey ? go : cancel).focus();
    }
  });

  dialog.addEventListener("close", function () {
    const { form, submitter } = asking || {};
    asking = null;
    if (!form) return;
    if (dialog.returnValue === "confirm") {
      confirmed.add(form);
      form.requestSubmit(submitter || undefined);
    } else if (submitter) {
      submitter.focus();
    }
  });
})();
