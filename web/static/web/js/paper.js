// A printed page read on a screen: its Print button (shown only when a script can print).
const button = document.getElementById("print");
if (button) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}
