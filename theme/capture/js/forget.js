// Before a lane's page is handed to the next variant, in every frame: what the
// last one stored where only a script of its origin can reach (sessionStorage
// lives as long as the tab, and a third-party frame's storage is partitioned by
// the top-level site: Storage.clearDataForOrigin clears neither, and the
// browser's frame tree does not list such a frame, out of process, to clear its
// storage key). Each kind is tried on its own: one may be missing or refused.
async () => {
  const quietly = async (what) => { try { await what(); } catch (e) {} };
  await quietly(() => sessionStorage.clear());
  await quietly(() => localStorage.clear());
  await quietly(async () => {
    for (const { name } of await indexedDB.databases()) {
      await new Promise((done) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = done; });
    }
  });
  await quietly(async () => { for (const name of await caches.keys()) await caches.delete(name); });
}
