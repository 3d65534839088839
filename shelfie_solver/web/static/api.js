// shelfie-solve serve: the one way both pages talk to the server (docs/serve.md, "The JSON API").
// The token of a non-loopback server comes from this page's URL (?token=...) and goes in a header;
// an answer that is not 2xx throws an Error whose message is the server's one-line "error" and
// whose `status` is the HTTP status (409: a stale write, the page reloads the state).

export const token = new URLSearchParams(location.search).get("token");

export async function api(method, path, body) {
  const headers = {};
  if (token) headers["X-Shelfie-Token"] = token;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try { data = await res.json(); } catch { data = { error: `the server answered HTTP ${res.status}` }; }
  if (!res.ok) {
    const error = new Error(data.error || `HTTP ${res.status}`);
    error.status = res.status;
    throw error;
  }
  return data;
}
