// Arena controls beside the table: the Berserk button (half your clock for this match, one
// point more if you win it), offered until your first move. The table redraws its clocks
// from the game view, which the berserk changes (the table socket pushes it).
import { api, ApiError, fill, flash } from "./api.js";

const button = document.getElementById("berserk");
const box = document.getElementById("berserk-box");
const flashBox = document.getElementById("flash");

if (button) {
  button.addEventListener("click", async () => {
    if (!window.confirm(gettext("Go berserk: half your clock for this match, one point more if you win?"))) return;
    button.disabled = true;
    try {
      await api(button.dataset.url, { method: "POST" });
      const strong = Object.assign(document.createElement("strong"), { textContent: gettext("Berserk") });
      box.replaceChildren(" · ", ...fill(gettext("%(berserk)s: half your clock"), { berserk: strong }));
      box.dataset.state = "berserk";
    } catch (error) {
      flash(flashBox, error instanceof ApiError
        ? interpolate(gettext("No berserk: %(reason)s"), { reason: error.detail }, true)
        : gettext("No berserk: the connection failed."));
      if (error instanceof ApiError && error.status === 409) box.remove();
      else button.disabled = false;
    }
  });
}
