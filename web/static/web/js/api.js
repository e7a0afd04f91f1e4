// Calls to the REST API with the session cookie: CSRF header on writes, JSON both ways,
// the project's error shape ({detail, code}) turned into ApiError, and an expired session
// sent to the sign-in page with a way back (?next=).

// ``detail`` is the server's reason in words, shown to a person as it is; an answer without
// one (a proxy's error page, a body that is not JSON) reads as its status.
export class ApiError extends Error {
  constructor(status, body, retryAfter = null) {
    super((body && typeof body.detail === "string" && body.detail)
      || interpolate(gettext("The server answered %(status)s."), { status }, true));
    this.status = status;
    this.detail = this.message;
    this.body = body && typeof body === "object" ? body : {};
    this.code = (typeof this.body.code === "string" && this.body.code) || "error";
    this.retryAfter = retryAfter === null ? null : Number(retryAfter); // seconds, on a 429
  }
}

// A refusal in words for a person: the server's ``detail``, or the messages of the fields a
// 400 names ("opponent: This field is required.") when it lists them; an error that is not
// the server's answer (the network, a page's own fault) as a failed connection. Never
// "undefined": every part is read only when it is text.
export function reasonOf(error) {
  if (!(error instanceof ApiError)) return gettext("the connection failed. Try again.");
  const errors = error.body.errors && typeof error.body.errors === "object" ? error.body.errors : {};
  const fields = Object.entries(errors)
    .map(([field, messages]) => {
      const text = [].concat(messages).filter((m) => typeof m === "string").join(" ");
      return text ? `${field === "non_field_errors" ? "" : `${field}: `}${text}` : "";
    })
    .filter(Boolean)
    .join("; ");
  return fields || error.detail;
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

// Leave this page for another, once: the socket, a poll and a button's answer may all learn
// of the same new table at once, and a second assign would cancel the first load.
let leaving = null;
export function goTo(url) {
  if (leaving) return;
  leaving = url;
  window.location.assign(url);
}

export function signInAgain() {
  const login = document.body.dataset.loginUrl || "/login";
  const here = window.location.pathname + window.location.search;
  goTo(`${login}?next=${encodeURIComponent(here)}&expired=1`);
}

function sessionLost(status, body, text) {
  if (status === 401) return true;
  // A signed-out session fails Django's CSRF check before authentication says so (in JSON
  // from the API, or as Django's own page).
  const said = body && typeof body.detail === "string" ? body.detail : text || "";
  return status === 403 && /CSRF/i.test(said);
}

// fetch JSON; returns {status, data, etag}. A 304 has data null.
export async function api(path, { method = "GET", body, etag, redirectOn401 = true } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken();
  if (etag) headers["If-None-Match"] = etag;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  if (response.status === 304) {
    return { status: 304, data: null, etag: response.headers.get("ETag") || etag };
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      // Not the API's answer (a proxy's error page): its markup is no reason for a person,
      // who reads the status instead.
      data = { code: "bad_response" };
    }
  }
  if (!response.ok) {
    if (redirectOn401 && sessionLost(response.status, data, text)) {
      signInAgain();
    }
    throw new ApiError(response.status, data, response.headers.get("Retry-After"));
  }
  return { status: response.status, data, etag: response.headers.get("ETag") };
}

// Show a message in a flash box (role=alert) until the next one or a timeout.
export function flash(box, text, { kind = "error", ms = 8000 } = {}) {
  if (!box) return;
  box.textContent = text;
  box.className = `flash ${kind}`;
  box.hidden = !text;
  clearTimeout(box._timer);
  if (text && ms) box._timer = setTimeout(() => { box.hidden = true; }, ms);
}

// A translated sentence with nodes in it: each "%(name)s" of ``format`` is replaced by
// values[name], a node or a text, and the result is a list of children for el() or append().
// fill(gettext("Laid off: %(card)s onto %(cards)s"), { card: node, cards: otherNode })
export function fill(format, values) {
  return format.split(/(%\(\w+\)s)/)
    .map((part) => {
      const name = /^%\((\w+)\)s$/.exec(part);
      return name ? values[name[1]] : part;
    })
    .filter((part) => part !== "" && part !== null && part !== undefined);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A player's kind as a tag beside their name: "bot" for a house bot, "guest" for a person
// entered by an organiser without an account; nothing for the others.
export function kindTag(player) {
  if (!player) return null;
  if (player.kind === "bot") return el("span", { class: "tag" }, pgettext("player kind", "bot"));
  if (player.kind === "guest") {
    return el("span", { class: "tag", title: gettext("entered by an organiser, without an account") }, pgettext("player kind", "guest"));
  }
  return null;
}

// A round's name as the reader reads it: the server keeps an event's round names in English
// (its data, the same for every caller), and the page shows them in its language. The same
// names as tournaments/round_names.py; a name it does not know is shown as it is.
const ROUND_NAMES = {
  "Final": () => pgettext("a round", "Final"),
  "Semifinals": () => pgettext("a round", "Semifinals"),
  "Quarterfinals": () => pgettext("a round", "Quarterfinals"),
  "Third place": () => pgettext("a round", "Third place"),
  "Grand final": () => pgettext("a round", "Grand final"),
  "Grand final reset": () => pgettext("a round", "Grand final reset"),
  "Arena": () => pgettext("a round", "Arena"),
  "Champion": () => pgettext("how far a player came", "Champion"),
};
const NUMBERED_ROUNDS = [
  [/^Round of (\d+)$/, () => pgettext("a round", "Round of %(number)s")],
  [/^Round (\d+)$/, () => pgettext("a round", "Round %(number)s")],
  [/^Winners round (\d+)$/, () => gettext("Winners round %(number)s")],
  [/^Losers round (\d+)$/, () => gettext("Losers round %(number)s")],
  [/^Groups, round (\d+)$/, () => gettext("Groups, round %(number)s")],
  [/^Group ([A-Z]+)$/, () => gettext("Group %(group)s")],
];

export function roundLabel(name) {
  if (typeof name !== "string") return name;
  if (ROUND_NAMES[name]) return ROUND_NAMES[name]();
  for (const [pattern, label] of NUMBERED_ROUNDS) {
    const match = pattern.exec(name);
    if (match) return interpolate(label(), { number: match[1], group: match[1] }, true);
  }
  return name;
}
