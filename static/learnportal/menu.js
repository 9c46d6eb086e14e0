// The header's two menus are <details> (base.html), so they open by click, Enter or Space
// without script. This adds what a menu is expected to do: Escape closes the open one and
// puts focus back on its button, and a click or focus elsewhere closes it.
"use strict";
(function () {
  const menus = Array.from(document.querySelectorAll(".bar details"));

  function close(menu, refocus) {
    if (!menu.open) return;
    menu.open = false;
    if (refocus) menu.querySelector("summary").focus();
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    menus.forEach(function (menu) {
      if (menu.open) close(menu, menu.contains(document.activeElement));
    });
  });
  document.addEventListener("click", function (event) {
    menus.forEach(function (menu) { if (!menu.contains(event.target)) close(menu, false); });
  });
  document.addEventListener("focusin", function (event) {
    menus.forEach(function (menu) { if (!menu.contains(event.target)) close(menu, false); });
  });
})();
