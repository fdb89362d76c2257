// The /v1 JSON API with the key this tab holds (sessionStorage: gone when the tab closes).

const KEY = "headroom.dashboard.key";

export class AuthError extends Error {}

export const key = {
  get: () => sessionStorage.getItem(KEY),
  set: (k) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

export async function get(path, params = {}) {
  const query = new URLSearchParams(
    Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const url = query.toString() ? `${path}?${query}` : path;
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key.get()}` } });
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
