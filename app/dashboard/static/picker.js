import { h } from "./dom.js";

// A select of the owner's clusters of one family; choosing one moves the hash.
export function clusterPicker(list, current, page, param = "c") {
  return h("p", {}, h("label", {}, "Cluster ",
    h("select", { "data-testid": "cluster-picker", onchange: (e) => {
      location.hash = `#/${page}?${param}=${e.target.value}`;
    } }, list.map((c) => {
      const o = h("option", { value: c.id }, `${c.name} (${c.policy.kind})`);
      o.selected = c.id === current.id;
      return o;
    }))));
}
