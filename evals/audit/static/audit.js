// Audit page: every click posts one label and marks it saved; keys for fast labelling.
(function () {
  const root = document.querySelector(".sides");
  if (!root) return;
  const position = root.dataset.position;
  const saved = document.getElementById("saved");
  const state = document.getElementById("pair-state");
  const steps = Array.from(document.querySelectorAll(".astep"));
  let focus = -1;

  async function post(kind, body, group, button) {
    saved.textContent = "saving…";
    saved.classList.remove("err");
    try {
      const r = await fetch(`/api/pair/${position}/${kind}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await r.json();
      if (!r.ok || !data.ok) throw new Error(data.error || data.detail || r.statusText);
      group.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", b === button ? "true" : "false"));
      saved.textContent = "saved ✓";
      state.textContent = data.complete ? "complete" : "in progress";
      state.className = "badge " + (data.complete ? "st-success" : "st-running");
      document.getElementById("done-count").textContent = `${data.finished} of ${data.total} finished`;
      document.querySelector(".bar > span").style.width = `${(100 * data.finished) / data.total}%`;
    } catch (e) {
      saved.textContent = "not saved: " + e.message;
      saved.classList.add("err");
    }
  }

  function click(button) {
    const group = button.closest(".choices");
    const kind = button.dataset.kind;
    const value = button.dataset.value;
    if (kind === "step") {
      const card = button.closest(".astep");
      return post("step", { side: card.dataset.side, step: Number(card.dataset.step), label: value }, group, button);
    }
    if (kind === "gate") return post("gate", { side: button.dataset.side, gate: button.dataset.gate, label: value }, group, button);
    return post("choice", { shown: value }, group, button);
  }

  document.querySelectorAll(".choices button").forEach((b) => b.addEventListener("click", () => click(b)));

  function setFocus(i) {
    if (!steps.length) return;
    focus = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach((s, k) => s.classList.toggle("focus", k === focus));
    steps[focus].scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", async (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || (e.target && e.target.tagName === "INPUT")) return;
    const k = e.key;
    const labels = { y: "yes", n: "no", c: "cj" };
    if (k === "j" || k === "ArrowDown") setFocus(focus + 1);
    else if (k === "k" || k === "ArrowUp") setFocus(focus - 1);
    else if (labels[k] && focus >= 0) {
      const b = steps[focus].querySelector(`button[data-value="${labels[k]}"]`);
      await click(b);
      setFocus(focus + 1);
    } else if ("12345".includes(k) && k.length === 1) {
      const b = document.querySelectorAll('.prefer button')[Number(k) - 1];
      click(b);
    } else if (k === "]") { const a = document.getElementById("next"); if (a) location.href = a.href; }
    else if (k === "[") { const a = document.getElementById("prev"); if (a) location.href = a.href; }
    else return;
    e.preventDefault();
  });
})();
