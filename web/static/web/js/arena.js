// Arena controls beside the table: the Berserk button (half your clock for this match, one
// point more if you win it), offered until your first move. The table redraws its clocks
// from the game view, which the berserk changes (the table socket pushes it).
import { api, ApiError, flash } from "./api.js";

const button = document.getElementById("berserk");
const box = document.getElementById("berserk-box");
const flashBox = document.getElementById("flash");

if (button) {
  button.addEventListener("click", async () => {
    if (!window.confirm("Go berserk: half your clock for this match, one point more if you win?")) return;
    button.disabled = true;
    try {
      await api(button.dataset.url, { method: "POST" });
      box.replaceChildren(" · ", Object.assign(document.createElement("strong"), { textContent: "Berserk" }), ": half your clock");
      box.dataset.state = "berserk";
    } catch (error) {
      flash(flashBox, error instanceof ApiError ? `No berserk: ${error.detail}` : "No berserk: the connection failed.");
      if (error instanceof ApiError && error.status === 409) box.remove();
      else button.disabled = false;
    }
  });
}
