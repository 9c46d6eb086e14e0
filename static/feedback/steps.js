// A turn's run on the rating pages (templates/feedback/partials/step_tree.html): in the tree,
// Up/Down move between the steps shown, Right unfolds the steps under one (or goes to its
// first), Left folds them away (or goes to its parent), Home/End the first and last; Enter
// opens a step's input and output (the browser's own <details>). A click on the fold mark
// folds too. Without this script every step is shown and opens on a click.
(function () {
  "use strict";
  const tree = document.querySelector(".step-tree");
  if (!tree) return;
  const steps = Array.from(tree.querySelectorAll(":scope > li.step"));
  const depth = (li) => Number(li.dataset.depth || 0);
  const row = (li) => li.querySelector(":scope > details > summary");

  function below(index) {
    // The steps under steps[index]: those after it, until one no deeper.
    const found = [];
    for (let i = index + 1; i < steps.length && depth(steps[i]) > depth(steps[index]); i++) {
      found.push(steps[i]);
    }
    return found;
  }
  function fold(index, away) {
    const li = steps[index];
    if (!row(li).hasAttribute("data-folds")) return false;
    li.classList.toggle("folded-away", away);
    row(li).setAttribute("aria-expanded", away ? "false" : "true");
    // Unfolding shows the direct steps again, and under them what was not folded itself.
    let hiddenBelow = -1;
    for (const child of below(index)) {
      if (away) {
        child.hidden = true;
        continue;
      }
      if (hiddenBelow >= 0 && depth(child) > hiddenBelow) continue;
      hiddenBelow = child.classList.contains("folded-away") ? depth(child) : -1;
      child.hidden = false;
    }
    return true;
  }
  function shown() {
    return steps.filter((li) => !li.hidden);
  }
  function go(li) {
    if (li) row(li).focus();
  }

  steps.forEach(function (li, index) {
    const summary = row(li);
    if (summary.hasAttribute("data-folds")) summary.setAttribute("aria-expanded", "true");
    summary.addEventListener("click", function (event) {
      // The fold mark is the first 1.25em of the name: a click there folds, not opens.
      const name = summary.querySelector(".step-name");
      if (!summary.hasAttribute("data-folds") || !name) return;
      const left = name.getBoundingClientRect().left;
      const mark = parseFloat(getComputedStyle(name).fontSize) * 1.1;
      if (event.clientX >= left && event.clientX < left + mark) {
        event.preventDefault();
        fold(index, !li.classList.contains("folded-away"));
      }
    });
  });

  tree.addEventListener("keydown", function (event) {
    const summary = event.target.closest("summary.step-row");
    if (!summary || event.ctrlKey || event.metaKey || event.altKey) return;
    const li = summary.closest("li.step");
    const index = steps.indexOf(li);
    const visible = shown();
    const at = visible.indexOf(li);
    let done = true;
    switch (event.key) {
      case "ArrowDown": go(visible[at + 1]); break;
      case "ArrowUp": go(visible[at - 1]); break;
      case "Home": go(visible[0]); break;
      case "End": go(visible[visible.length - 1]); break;
      case "ArrowRight":
        if (li.classList.contains("folded-away")) fold(index, false);
        else if (summary.hasAttribute("data-folds")) go(steps[index + 1]);
        break;
      case "ArrowLeft":
        if (summary.hasAttribute("data-folds") && !li.classList.contains("folded-away")) {
          fold(index, true);
        } else {
          for (let i = index - 1; i >= 0; i--) {
            if (depth(steps[i]) < depth(li)) { go(steps[i]); break; }
          }
        }
        break;
      case "Enter":
      case " ":
        event.stopPropagation(); // the browser opens the step; the page's keys stay out
        return;
      default:
        done = false;
    }
    if (done) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
})();
