// The table's sounds: short tones made with the Web Audio API (no file to download), for your
// turn, a move, a deal's end and low time on your clock. Only with the player's "Sounds at
// the table" on (<body data-sounds="on">, from the account; visitors: on), and never before
// the person has touched the page: browsers refuse sound until then, and so do we. The audio
// context is made at the first tap, click or key press, and not at all with sounds off.

// Each sound: notes of [frequency in Hz, start in s, length in s].
const SOUNDS = {
  turn: [[660, 0, 0.09], [880, 0.1, 0.14]],
  move: [[440, 0, 0.05]],
  deal_end: [[784, 0, 0.1], [659, 0.11, 0.1], [523, 0.22, 0.2]],
  low: [[988, 0, 0.07], [988, 0.12, 0.07]],
};
const VOLUME = 0.12;

let context = null;

export function soundsOn() {
  return document.body.dataset.sounds === "on";
}

function wake() {
  if (!soundsOn()) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume();
}

for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, wake, { capture: true, passive: true });
}

// Play one of SOUNDS; false when it stays silent (sounds off, or nobody has touched the page).
export function play(name) {
  const notes = SOUNDS[name];
  if (!notes || !soundsOn() || !context || context.state !== "running") return false;
  const now = context.currentTime;
  for (const [frequency, start, length] of notes) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    // A quick fade in and out: no click at either end.
    gain.gain.setValueAtTime(0, now + start);
    gain.gain.linearRampToValueAtTime(VOLUME, now + start + 0.01);
    gain.gain.linearRampToValueAtTime(0, now + start + length);
    tone.connect(gain).connect(context.destination);
    tone.start(now + start);
    tone.stop(now + start + length + 0.02);
  }
  document.dispatchEvent(new CustomEvent("table-sound", { detail: name }));
  return true;
}
