// The Copy button of a token shown once: into the clipboard, else selected for Ctrl+C.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById("copy-status");
  field.focus();
  field.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(field.value);
    copied = true;
  } catch {
    copied = document.execCommand && document.execCommand("copy");
  }
  if (status) status.textContent = copied ? "Copied to the clipboard." : "Selected: press Ctrl+C (⌘C) to copy.";
  button.textContent = copied ? "Copied" : "Copy";
});
