// A match page: "I am here" tells a tournament that this player showed up (the time left to
// do so counts down beside it); a challenger waits here for the challenged player's answer
// (and may withdraw the challenge) and goes to the table once they accept; the challenged
// player may accept or decline here; a finished rated match whose rating change is not
// written yet shows it once it is.
import { api, ApiError, el, flash, goTo, reasonOf } from "./api.js";
import { startCountdowns } from "./countdown.js";

const button = document.getElementById("show-up");
const box = document.getElementById("match-flash");

async function wait(url) {
  // Both must show up: look again until the match has started.
  const { data } = await api(url.replace(/\/events\/\d+\/matches\/(\d+)\/ready$/, "/matches/$1"));
  if (data.current_game) goTo(`/games/${data.current_game}`);
  else setTimeout(() => wait(url), 2000);
}

if (button) {
  startCountdowns(); // the time left to show up, ticking
  button.addEventListener("click", async () => {
    if (button.disabled) return;
    button.disabled = true;
    try {
      const { data } = await api(button.dataset.url, { method: "POST" });
      button.textContent = data.status === "active" ? gettext("Starting…") : gettext("Waiting for your opponent…");
      wait(button.dataset.url);
    } catch (error) {
      flash(box, error instanceof ApiError ? error.detail : gettext("The connection failed: try again."));
      button.disabled = false;
    }
  });
}

// A refusal in the API's words, with the way to the match it names (a tournament match).
function refused(error) {
  flash(box, error instanceof ApiError ? reasonOf(error) : gettext("The connection failed: try again."), { ms: 0 });
  const url = error instanceof ApiError && typeof error.body.url === "string" ? error.body.url : null;
  if (url && url.startsWith("/")) box.append(" ", el("a", { href: url }, gettext("Go to your match")));
}

const awaiting = document.getElementById("awaiting");
if (awaiting) {
  const poll = async () => {
    try {
      const { data } = await api(`/api/matches/${awaiting.dataset.match}`);
      if (data.current_game) return goTo(`/games/${data.current_game}`);
      if (data.status !== "challenged") return window.location.reload(); // declined or withdrawn
    } catch {
      // a dropped connection: ask again
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
  // The answer is pushed on the player's own socket (me.js): the table opens at once; the
  // polling above stays as the fallback while that socket is away.
  window.addEventListener("rummy:me", ({ detail }) => {
    if (detail.type !== "challenge" || String(detail.match) !== awaiting.dataset.match) return;
    if (detail.status === "accepted" && detail.game) goTo(`/games/${detail.game}`);
    else if (detail.status !== "challenged") window.location.reload();
  });

  // The challenger takes the challenge back: the challenged player's notice goes at once.
  const withdraw = document.getElementById("withdraw");
  withdraw.addEventListener("click", async () => {
    if (withdraw.disabled) return;
    withdraw.disabled = true;
    try {
      await api(withdraw.dataset.url, { method: "POST" });
      window.location.reload(); // the page says it was cancelled
    } catch (error) {
      refused(error);
      withdraw.disabled = false;
    }
  });
}

// The challenged player answers here too: accepted, to the table; declined, the page says so.
const challenged = document.getElementById("challenged");
if (challenged) {
  for (const button of document.querySelectorAll("[data-answer]")) {
    button.addEventListener("click", async () => {
      if (button.disabled) return;
      button.disabled = true;
      try {
        const { data } = await api(`/api/matches/${challenged.dataset.match}/${button.dataset.answer}`, { method: "POST" });
        if (data.current_game) return goTo(`/games/${data.current_game}`);
        return window.location.reload();
      } catch (error) {
        refused(error);
        button.disabled = false;
      }
      return undefined;
    });
  }
}

const pendingRating = document.querySelector("[data-pending]");
if (pendingRating) {
  let tries = 0;
  const poll = async () => {
    tries += 1;
    try {
      const { data } = await api(`/api/matches/${pendingRating.dataset.pending}`);
      if (data.ratings) return window.location.reload(); // the page renders it
    } catch {
      // a dropped connection: ask again
    }
    if (tries < 40) setTimeout(poll, 1500);
    return undefined;
  };
  setTimeout(poll, 1500);
}
