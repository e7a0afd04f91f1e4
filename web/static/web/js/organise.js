// The organiser's pages without reloads where it helps; every page works without it.
// - The event form shows only the chosen format's options (rows marked data-formats).
// - The organiser's own time zone is kept in a cookie the server reads the form's times in.
// - The check-in desk sends a tap without leaving the page and redraws the desk.
// - The seeding list is put in order by dragging (pointer or arrow keys) instead of numbers.

const ZONE_COOKIE = "tz";

function zone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return "";
  }
}

function cookie(name) {
  const found = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
}

// --- the event form -----------------------------------------------------------------------

function formatOptions(form) {
  const select = form.querySelector('select[name="format"]');
  if (!select) return;
  const apply = () => {
    for (const row of form.querySelectorAll("[data-formats]")) {
      const formats = row.dataset.formats.split(" ").filter(Boolean);
      row.hidden = formats.length > 0 && !formats.includes(select.value);
    }
    for (const section of form.querySelectorAll("fieldset.section")) {
      const rows = section.querySelectorAll(".field");
      section.hidden = rows.length > 0 && [...rows].every((row) => row.hidden);
    }
  };
  select.addEventListener("change", apply);
  apply();
}

function keepZone() {
  const here = zone();
  // An IANA name ("Europe/Paris") is safe in a cookie as it is.
  if (!/^[A-Za-z0-9_+\-/]+$/.test(here) || cookie(ZONE_COOKIE) === here) return;
  document.cookie = `${ZONE_COOKIE}=${here}; path=/organise; max-age=31536000; SameSite=Lax`;
  // A form just opened was drawn in the site's zone: draw it again in the organiser's.
  const fresh = document.querySelector("form[data-fresh] [data-zone]");
  if (fresh && fresh.textContent.trim() !== here) window.location.reload();
}

// --- the check-in desk --------------------------------------------------------------------

function desk(root) {
  const find = () => root.querySelector("[data-desk-find]");
  const filter = () => {
    const input = find();
    if (!input) return;
    input.closest(".desk-find").hidden = false;
    const wanted = input.value.trim().toLowerCase();
    for (const item of root.querySelectorAll(".desk-list li")) {
      item.hidden = wanted !== "" && !item.dataset.name.includes(wanted);
    }
  };
  root.addEventListener("input", (event) => {
    if (event.target.matches("[data-desk-find]")) filter();
  });
  root.addEventListener("submit", async (event) => {
    const form = event.target;
    event.preventDefault();
    if (root.classList.contains("busy")) return;
    root.classList.add("busy");
    const wanted = find() ? find().value : "";
    const tapped = form.closest("li") ? form.closest("li").id : "";
    try {
      // Not form.action: the form's input named "action" hides that property.
      const target = form.getAttribute("action") || window.location.pathname + window.location.search;
      const response = await fetch(target, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
      });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("desk");
      if (!fresh) throw new Error("no desk in the answer");
      root.innerHTML = fresh.innerHTML;
      const notes = document.querySelector(".messages");
      const freshNotes = page.querySelector(".messages");
      if (notes) notes.remove();
      if (freshNotes) document.querySelector("main").before(freshNotes);
      const refused = page.querySelector(".organise > .message.error");
      const shown = document.querySelector(".organise > .message.error");
      if (shown) shown.remove();
      if (refused) root.before(refused);
      if (find()) find().value = wanted;
      filter();
      const again = tapped && document.getElementById(tapped);
      if (again && again.querySelector("button")) again.querySelector("button").focus();
    } catch {
      form.submit(); // the page's own way: post and reload
    } finally {
      root.classList.remove("busy");
    }
  });
  filter();
}

// --- seeding by dragging ------------------------------------------------------------------

function seeding(form) {
  const list = form.querySelector("[data-seed-list]");
  const radios = [...form.querySelectorAll('input[name="seeding"]')];
  const showMethod = () => {
    const chosen = (radios.find((r) => r.checked) || {}).value;
    for (const part of form.querySelectorAll("[data-seeding]")) {
      part.hidden = part.dataset.seeding !== chosen;
    }
  };
  for (const radio of radios) radio.addEventListener("change", showMethod);
  showMethod();
  if (!list) return;
  const manual = () => {
    const radio = radios.find((r) => r.value === "manual");
    if (radio && !radio.checked) {
      radio.checked = true;
      showMethod();
    }
  };
  const renumber = () => {
    [...list.children].forEach((row, index) => {
      row.dataset.place = String(index + 1);
      row.querySelector(".place input").value = String(index + 1);
    });
  };
  list.dataset.enhanced = "";
  for (const hint of form.querySelectorAll(".drag-hint")) hint.hidden = false;
  for (const hint of form.querySelectorAll(".number-hint")) hint.hidden = true;
  // Start from the numbers shown (a refused order comes back as typed).
  const rows = [...list.children];
  rows.sort((a, b) => Number(a.querySelector(".place input").value || 1e9) -
    Number(b.querySelector(".place input").value || 1e9));
  for (const row of rows) list.append(row);
  renumber();

  for (const handle of list.querySelectorAll(".handle")) {
    handle.hidden = false;
    handle.addEventListener("keydown", (event) => {
      const row = handle.closest(".seed-row");
      if (event.key === "ArrowUp" && row.previousElementSibling) {
        row.previousElementSibling.before(row);
      } else if (event.key === "ArrowDown" && row.nextElementSibling) {
        row.nextElementSibling.after(row);
      } else {
        return;
      }
      event.preventDefault();
      handle.focus();
      renumber();
      manual();
    });
    handle.addEventListener("pointerdown", (event) => {
      const row = handle.closest(".seed-row");
      event.preventDefault();
      row.classList.add("lifted");
      list.classList.add("dragging");
      // Followed on the document: moving the row in the page would end a pointer capture.
      const move = (moved) => {
        if (moved.pointerId !== event.pointerId) return;
        const others = [...list.children].filter((r) => r !== row);
        const below = others.find((other) => {
          const box = other.getBoundingClientRect();
          return moved.clientY < box.top + box.height / 2;
        });
        if (below && below !== row.nextElementSibling) below.before(row);
        else if (!below && list.lastElementChild !== row) list.append(row);
      };
      const drop = (ended) => {
        if (ended.pointerId !== event.pointerId) return;
        document.removeEventListener("pointermove", move);
        document.removeEventListener("pointerup", drop);
        document.removeEventListener("pointercancel", drop);
        row.classList.remove("lifted");
        list.classList.remove("dragging");
        renumber();
        manual();
        handle.focus();
      };
      document.addEventListener("pointermove", move);
      document.addEventListener("pointerup", drop);
      document.addEventListener("pointercancel", drop);
    });
  }
}

// --- start --------------------------------------------------------------------------------

keepZone();
const eventForm = document.getElementById("event-form");
if (eventForm) formatOptions(eventForm);
const deskRoot = document.querySelector("[data-desk]");
if (deskRoot) desk(deskRoot);
const seedForm = document.getElementById("seed-form");
if (seedForm) seeding(seedForm);
