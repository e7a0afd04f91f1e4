// A match page: "I am here" tells a tournament that this player showed up (the time left to
// do so counts down beside it); a challenger waits here for the challenged player's answer
// and goes to the table once they accept; a finished rated match whose rating change is not
// written yet shows it once it is.
import { api, ApiError, flash, goTo } from "./api.js";
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
      button.textContent = data.status === "active" ? "Starting…" : "Waiting for your opponent…";
      wait(button.dataset.url);
    } catch (error) {
      flash(box, error instanceof ApiError ? error.detail : "The connection failed: try again.");
      button.disabled = false;
    }
  });
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
