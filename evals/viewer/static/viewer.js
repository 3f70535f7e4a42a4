// Keyboard navigation for the trace viewer: plain JS, no dependencies.
(function () {
  function typing(e) {
    const t = e.target;
    return t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
  }

  // Rollout page: one step at a time; left/right or j/k, Home/End; the URL hash keeps the place.
  const stepper = document.querySelector("[data-stepper]");
  if (stepper) {
    const steps = Array.from(stepper.querySelectorAll(".step"));
    const chips = Array.from(document.querySelectorAll(".step-chip"));
    stepper.setAttribute("data-js", "1");
    let cur = 0;
    function show(i, push) {
      cur = Math.max(0, Math.min(steps.length - 1, i));
      steps.forEach((s, k) => s.classList.toggle("current", k === cur));
      chips.forEach((c, k) => c.classList.toggle("current", k === cur));
      if (push) history.replaceState(null, "", "#step=" + steps[cur].dataset.index);
    }
    // "#step=N" rather than an element id, so the browser does not jump past the contract.
    const fromHash = () => steps.findIndex((s) => "#step=" + s.dataset.index === location.hash);
    show(Math.max(0, fromHash()), false);
    window.addEventListener("hashchange", () => { if (fromHash() >= 0) show(fromHash(), false); });
    chips.forEach((c, k) => c.addEventListener("click", (e) => { e.preventDefault(); show(k, true); }));
    document.addEventListener("keydown", (e) => {
      if (typing(e) || e.altKey || e.ctrlKey || e.metaKey) return;
      const k = e.key;
      if (k === "ArrowRight" || k === "j") show(cur + 1, true);
      else if (k === "ArrowLeft" || k === "k") show(cur - 1, true);
      else if (k === "Home") show(0, true);
      else if (k === "End") show(steps.length - 1, true);
      else return;
      e.preventDefault();
    });
  }

  // Compare page: j/k or up/down move a highlight between aligned step rows.
  const table = document.querySelector("[data-rows]");
  if (table) {
    const rows = Array.from(table.querySelectorAll("tbody tr"));
    let cur = rows.findIndex((r) => r.classList.contains("diverge"));
    function mark(i) {
      cur = Math.max(0, Math.min(rows.length - 1, i));
      rows.forEach((r, k) => r.classList.toggle("current", k === cur));
      rows[cur].scrollIntoView({ block: "nearest" });
    }
    if (cur >= 0) mark(cur);
    document.addEventListener("keydown", (e) => {
      if (typing(e) || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "j" || e.key === "ArrowDown") mark(cur + 1);
      else if (e.key === "k" || e.key === "ArrowUp") mark(cur - 1);
      else return;
      e.preventDefault();
    });
  }
})();
