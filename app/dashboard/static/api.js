// The /v1 JSON API with the key this tab holds (sessionStorage: gone when the tab closes).

const KEY = "headroom.dashboard.key";

export class AuthError extends Error {}

export const key = {
  get: () => sessionStorage.getItem(KEY),
  set: (k) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

// An answer's body, or an Error carrying the problem document (`problem`: code, detail and,
// for a 422, `errors` naming each field) and the status.
async function answer(res) {
  if (res.status === 401) throw new AuthError("this key is not valid (401)");
  const body = await res.json();
  if (!res.ok) {
    const err = new Error(`${res.status} ${body.code || ""}: ${body.detail || body.title || ""}`);
    err.status = res.status;
    err.problem = body;
    throw err;
  }
  return body;
}

export async function get(path, params = {}) {
  const query = new URLSearchParams(
    Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const url = query.toString() ? `${path}?${query}` : path;
  return answer(await fetch(url, { headers: { Authorization: `Bearer ${key.get()}` } }));
}

// A write (POST with a JSON body, DELETE): the key decides whether it may; a read key's
// answer is the service's 403 problem, for the page to show.
export async function send(method, path, body) {
  const headers = { Authorization: `Bearer ${key.get()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return answer(await fetch(path, { method, headers,
    body: body === undefined ? undefined : JSON.stringify(body) }));
}

// Every item of a cursor-paged collection (clusters, streams): the owner's, since the API
// scopes listings by the key's owner.
export async function all(path, params = {}) {
  const items = [];
  let cursor;
  do {
    const page = await get(path, { ...params, limit: 500, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}
