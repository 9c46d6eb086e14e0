// A step's settings form: ticking "Lock learnings" asks for its reason (review notes) at once,
// as the server will; unticking it says so.
"use strict";
const form = document.querySelector(".step-form");
if (form) {
  const lock = form.querySelector("[name=lock_learnings]");
  const notes = form.querySelector("[name=review_notes]");
  const sync = () => {
    const locking = lock.checked && form.dataset.locked !== "1";
    notes.required = locking;
    notes.classList.toggle("needed", locking && !notes.value.trim());
  };
  lock.addEventListener("change", () => { sync(); if (notes.required) notes.focus(); });
  notes.addEventListener("input", sync);
  sync();
}
