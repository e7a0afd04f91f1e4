// A socket to the server that reconnects by itself: connect("/ws/me") returns a handle with
// on(type, fn) for the server's messages by their "type" ("open" and "close" for the socket
// itself), send(message), isOpen and close(). After a drop it tries again with exponential
// backoff (1 s doubling to 30 s, with jitter), at once when the browser comes back online;
// a refusal (close codes 4401, 4403, 4404) is final. The server's pings are answered.
// Pages keep their polling for while the socket is not open: sockets are an addition.

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30000;

export function connect(path) {
  const handlers = new Map();
  let ws = null;
  let attempt = 0;
  let timer = null;
  let stopped = false;

  function emit(type, data) {
    for (const fn of handlers.get(type) || []) {
      try {
        fn(data);
      } catch (error) {
        console.error(error); // one broken listener must not silence the others
      }
    }
  }

  function url() {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${window.location.host}${path}`;
  }

  function retry() {
    if (stopped || timer) return;
    const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    timer = setTimeout(() => { timer = null; open(); }, delay);
  }

  function open() {
    if (stopped || ws) return;
    let socket;
    try {
      socket = new WebSocket(url());
    } catch {
      retry();
      return;
    }
    ws = socket;
    socket.addEventListener("open", () => { attempt = 0; emit("open"); });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "ping") send({ type: "pong", id: message.id });
      emit(message.type, message);
    });
    socket.addEventListener("close", (event) => {
      if (ws === socket) ws = null;
      emit("close", event);
      if (event.code >= 4400 && event.code < 4500) stopped = true; // refused: not yours to see
      else retry();
    });
  }

  function send(message) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  window.addEventListener("online", () => {
    if (ws || stopped) return;
    clearTimeout(timer);
    timer = null;
    open();
  });

  open();
  return {
    on(type, fn) {
      if (!handlers.has(type)) handlers.set(type, []);
      handlers.get(type).push(fn);
      return this;
    },
    send,
    get isOpen() { return Boolean(ws && ws.readyState === WebSocket.OPEN); },
    close() {
      stopped = true;
      clearTimeout(timer);
      if (ws) ws.close();
    },
  };
}
