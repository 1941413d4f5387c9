// Just enough of IndexedDB for IndexedDbCache: open with upgrade, one object store, get/put/delete/
// getAllKeys/clear in transactions, all asynchronous like the real thing. Knobs make each step fail on demand.

/** A request as the fake answers it: IndexedDbCache sets the handlers, the fake calls them (without an event). */
interface FakeRequest {
  result: unknown;
  error: DOMException | null;
  onsuccess?: () => void;
  onerror?: () => void;
  onblocked?: () => void;
  onupgradeneeded?: () => void;
}

/** A transaction as the fake runs it: one store, and the handlers IndexedDbCache sets. */
interface FakeTransaction {
  error: DOMException | null;
  oncomplete?: () => void;
  onerror?: () => void;
  objectStore?: () => Record<string, (...args: never[]) => FakeRequest>;
}

export interface FakeIdbFaults {
  open?: "error" | "blocked" | "throw";
  write?: boolean;
  /** Every read-only transaction fails (a disk error, a database closing under it). */
  read?: boolean;
}

type Records = Map<IDBValidKey, unknown>;

export class FakeIndexedDb {
  readonly databases = new Map<string, { version: number; stores: Map<string, Records> }>();
  faults: FakeIdbFaults = {};
  openCalls = 0;
  /** Connections not closed yet, by database name. */
  private readonly open_ = new Map<string, Set<IDBDatabase>>();

  /** Another window deletes or upgrades the database: each open connection hears `versionchange`. */
  versionChangeElsewhere(name: string): void {
    for (const connection of [...(this.open_.get(name) ?? [])]) connection.onversionchange?.call(connection, new Event("versionchange") as IDBVersionChangeEvent);
  }

  /** How many connections to `name` are open. */
  openConnections(name: string): number {
    return this.open_.get(name)?.size ?? 0;
  }

  asFactory(): IDBFactory {
    return { open: (name: string, version?: number) => this.open(name, version ?? 1) } as unknown as IDBFactory;
  }

  private open(name: string, version: number): IDBOpenDBRequest {
    this.openCalls++;
    if (this.faults.open === "throw") throw new DOMException("The operation is insecure.", "SecurityError");
    const request: FakeRequest = { result: undefined, error: null };
    setTimeout(() => {
      if (this.faults.open === "error") {
        request.error = new DOMException("Quota exceeded", "QuotaExceededError");
        request.onerror?.();
        return;
      }
      if (this.faults.open === "blocked") {
        request.onblocked?.();
        return;
      }
      let db = this.databases.get(name);
      const upgrading = !db || db.version < version;
      if (!db) {
        db = { version, stores: new Map() };
        this.databases.set(name, db);
      }
      db.version = version;
      request.result = this.connection(db, name);
      if (upgrading) request.onupgradeneeded?.();
      request.onsuccess?.();
    }, 0);
    return request as unknown as IDBOpenDBRequest;
  }

  private connection(db: { stores: Map<string, Records> }, name: string): IDBDatabase {
    const faults = () => this.faults;
    const open = this.open_.get(name) ?? new Set<IDBDatabase>();
    this.open_.set(name, open);
    let closed = false;
    const connection = {
      objectStoreNames: { contains: (n: string) => db.stores.has(n) },
      createObjectStore: (n: string) => db.stores.set(n, new Map()),
      close: () => {
        closed = true;
        open.delete(connection);
      },
      onversionchange: null,
      transaction: (storeName: string, mode: IDBTransactionMode) => {
        if (closed) throw new DOMException("The database connection is closing.", "InvalidStateError");
        const tx: FakeTransaction = { error: null };
        const records = db.stores.get(storeName);
        if (!records) throw new DOMException("No such store", "NotFoundError");
        const finish = (work: () => unknown): FakeRequest => {
          const request: FakeRequest = { result: undefined, error: null };
          setTimeout(() => {
            if ((mode === "readwrite" && faults().write) || (mode === "readonly" && faults().read)) {
              tx.error = mode === "readwrite" ? new DOMException("Quota exceeded", "QuotaExceededError") : new DOMException("The read failed.", "UnknownError");
              request.error = tx.error;
              request.onerror?.();
              tx.onerror?.();
              return;
            }
            request.result = work();
            request.onsuccess?.();
            tx.oncomplete?.();
          }, 0);
          return request;
        };
        tx.objectStore = () => ({
          get: (key: IDBValidKey) => finish(() => records.get(key)),
          put: (value: unknown, key: IDBValidKey) => finish(() => (records.set(key, structuredClone(value)), key)),
          delete: (key: IDBValidKey) => finish(() => void records.delete(key)),
          getAllKeys: () => finish(() => [...records.keys()]),
          clear: () => finish(() => records.clear()),
        });
        return tx;
      },
    } as unknown as IDBDatabase;
    open.add(connection);
    return connection;
  }
}
