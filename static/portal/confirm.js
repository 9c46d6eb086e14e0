// A form with data-confirm asks before it is sent: revoking, deactivating, rolling back.
// Without JavaScript the form is sent unasked, as the server would accept it anyway.
"use strict";
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
  if (!window.confirm(form.dataset.confirm)) event.preventDefault();
});
