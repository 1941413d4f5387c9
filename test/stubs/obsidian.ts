// A small, faithful stand-in for the `obsidian` module, for vitest (aliased in vitest.config.ts)
// and for loading the built plugin in a sandbox. Signatures follow node_modules/obsidian/obsidian.d.ts;
// behaviour follows the app where tests depend on it (events fire after writes, create refuses to
// overwrite, onLayoutReady runs at once when the layout is ready). Test-only helpers are marked
// "Stand-in only" and do not exist in the real module.

// ---------------------------------------------------------------------------------------------
// DOM helpers Obsidian adds to Node/Element/HTMLElement

export interface DomElementInfo {
  cls?: string | string[];
  text?: string | DocumentFragment;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  parent?: Node;
  value?: string;
  type?: string;
  prepend?: boolean;
  placeholder?: string;
  href?: string;
}

function applyInfo(el: HTMLElement, o: DomElementInfo | string | undefined): void {
  if (o === undefined) return;
  // A bare string is a class name, as in the app: `createDiv("nav-header")`.
  const info: DomElementInfo = typeof o === "string" ? { cls: o } : o;
  if (info.cls !== undefined) {
    const classes = Array.isArray(info.cls) ? info.cls : info.cls.split(" ");
    el.classList.add(...classes.filter((c) => c.length > 0));
  }
  if (info.text !== undefined) {
    if (typeof info.text === "string") el.textContent = info.text;
    else el.appendChild(info.text);
  }
  if (info.attr) for (const [k, v] of Object.entries(info.attr)) setAttribute(el, k, v);
  if (info.title !== undefined) el.title = info.title;
  if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
  if (info.type !== undefined) (el as HTMLInputElement).type = info.type;
  if (info.placeholder !== undefined) (el as HTMLInputElement).placeholder = info.placeholder;
  if (info.href !== undefined) (el as HTMLAnchorElement).href = info.href;
}

function setAttribute(el: Element, name: string, value: string | number | boolean | null): void {
  if (value === null || value === false) el.removeAttribute(name);
  else el.setAttribute(name, value === true ? "" : String(value));
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Puts a new element where `createEl` and `createSvg` put it: in `info.parent`, else in `parent`, first if `prepend`. */
function place(el: Element, parent: Node | null, info: DomElementInfo | SvgElementInfo | undefined): void {
  const target = info?.parent ?? parent;
  if (!target) return;
  if (info?.prepend) target.insertBefore(el, target.firstChild);
  else target.appendChild(el);
}

function makeEl<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  parent: Node | null,
  tag: K,
  o?: DomElementInfo | string,
  callback?: (el: HTMLElementTagNameMap[K]) => void,
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  applyInfo(el, o);
  place(el, parent, typeof o === "object" ? o : undefined);
  callback?.(el);
  return el;
}

export interface SvgElementInfo {
  cls?: string | string[];
  attr?: Record<string, string | number | boolean | null>;
  parent?: Node;
  prepend?: boolean;
}

function makeSvg<K extends keyof SVGElementTagNameMap>(
  doc: Document,
  parent: Node | null,
  tag: K,
  o?: SvgElementInfo | string,
  callback?: (el: SVGElementTagNameMap[K]) => void,
): SVGElementTagNameMap[K] {
  const el = doc.createElementNS(SVG_NS, tag);
  const info: SvgElementInfo = typeof o === "string" ? { cls: o } : (o ?? {});
  if (info.cls !== undefined) {
    const classes = Array.isArray(info.cls) ? info.cls : info.cls.split(" ");
    el.classList.add(...classes.filter((c) => c.length > 0));
  }
  if (info.attr) for (const [k, v] of Object.entries(info.attr)) setAttribute(el, k, v);
  place(el, parent, info);
  callback?.(el);
  return el;
}

/** The global scope the helpers go on: the browser's window, or happy-dom's in tests. */
type DomScope = typeof window;

let domHelpersInstalled = false;

/**
 * Stand-in only. Adds Obsidian's DOM helpers to the DOM classes of the current global scope.
 * Runs on import when a DOM exists; call it again after creating a DOM later.
 */
export function installDomHelpers(scope: DomScope | undefined = typeof window !== "undefined" ? window : undefined): boolean {
  if (!scope || typeof scope.Node !== "function" || !scope.document) return false;
  const nodeProto: Partial<Node> = scope.Node.prototype;
  if (nodeProto.createEl && domHelpersInstalled) return true;
  // A document is its own; any other node belongs to its owner.
  const docOf = (node: Node): Document => node.ownerDocument ?? (node as Document);
  Object.assign(nodeProto, {
    createEl<K extends keyof HTMLElementTagNameMap>(this: Node, tag: K, o?: DomElementInfo | string, cb?: (el: HTMLElementTagNameMap[K]) => void) {
      return makeEl(docOf(this), this, tag, o, cb);
    },
    createDiv(this: Node, o?: DomElementInfo | string, cb?: (el: HTMLDivElement) => void) {
      return makeEl(docOf(this), this, "div", o, cb);
    },
    createSpan(this: Node, o?: DomElementInfo | string, cb?: (el: HTMLSpanElement) => void) {
      return makeEl(docOf(this), this, "span", o, cb);
    },
    createSvg<K extends keyof SVGElementTagNameMap>(this: Node, tag: K, o?: SvgElementInfo | string, cb?: (el: SVGElementTagNameMap[K]) => void) {
      return makeSvg(docOf(this), this, tag, o, cb);
    },
    empty(this: Node) {
      while (this.firstChild) this.removeChild(this.firstChild);
    },
    detach(this: Node) {
      this.parentNode?.removeChild(this);
    },
    appendText(this: Node, val: string) {
      this.appendChild(docOf(this).createTextNode(val));
    },
    instanceOf<T>(this: Node, type: new () => T): boolean {
      return this instanceof type;
    },
  });
  const elProto: Partial<Element> = scope.Element.prototype;
  Object.assign(elProto, {
    getText(this: Element) {
      return this.textContent ?? "";
    },
    setText(this: Element, val: string | DocumentFragment) {
      if (typeof val === "string") this.textContent = val;
      else {
        this.textContent = "";
        this.appendChild(val);
      }
    },
    addClass(this: Element, ...classes: string[]) {
      this.classList.add(...classes);
    },
    addClasses(this: Element, classes: string[]) {
      this.classList.add(...classes);
    },
    removeClass(this: Element, ...classes: string[]) {
      this.classList.remove(...classes);
    },
    removeClasses(this: Element, classes: string[]) {
      this.classList.remove(...classes);
    },
    toggleClass(this: Element, classes: string | string[], value: boolean) {
      for (const c of Array.isArray(classes) ? classes : [classes]) this.classList.toggle(c, value);
    },
    hasClass(this: Element, cls: string) {
      return this.classList.contains(cls);
    },
    setAttr(this: Element, name: string, value: string | number | boolean | null) {
      setAttribute(this, name, value);
    },
    setAttrs(this: Element, obj: Record<string, string | number | boolean | null>) {
      for (const [k, v] of Object.entries(obj)) setAttribute(this, k, v);
    },
    getAttr(this: Element, name: string) {
      return this.getAttribute(name);
    },
    find(this: Element, selector: string) {
      return this.querySelector(selector);
    },
    findAll(this: Element, selector: string) {
      return Array.from(this.querySelectorAll(selector));
    },
  });
  Object.assign(scope.HTMLElement.prototype, {
    // The app hides with `display: none` (what its `isShown` looks for), which an element's own
    // CSS `display` cannot undo, as it would undo the `hidden` attribute.
    show(this: HTMLElement) {
      this.setCssStyles({ display: "" });
    },
    hide(this: HTMLElement) {
      this.setCssStyles({ display: "none" });
    },
    toggle(this: HTMLElement, show: boolean) {
      this.setCssStyles({ display: show ? "" : "none" });
    },
    setCssStyles(this: HTMLElement, styles: Partial<CSSStyleDeclaration>) {
      Object.assign(this.style, styles);
    },
    setCssProps(this: HTMLElement, props: Record<string, string>) {
      for (const [name, value] of Object.entries(props)) this.style.setProperty(name, value);
    },
    onClickEvent(this: HTMLElement, listener: (ev: MouseEvent) => unknown, options?: boolean | AddEventListenerOptions) {
      this.addEventListener("click", listener, options);
    },
  });
  const doc = scope.document;
  scope.createEl = (tag, o, cb) => makeEl(doc, null, tag, o, cb);
  scope.createDiv = (o, cb) => makeEl(doc, null, "div", o, cb);
  scope.createSpan = (o, cb) => makeEl(doc, null, "span", o, cb);
  scope.createSvg = (tag, o, cb) => makeSvg(doc, null, tag, o, cb);
  scope.createFragment = (cb?: (el: DocumentFragment) => void) => {
    const fragment = doc.createDocumentFragment();
    cb?.(fragment);
    return fragment;
  };
  scope.activeWindow ??= scope;
  scope.activeDocument ??= doc;
  domHelpersInstalled = true;
  return true;
}

installDomHelpers();

function newEl<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  if (typeof document === "undefined") {
    throw new Error(`obsidian stand-in: a DOM is needed to create <${tag}> (use the happy-dom test environment)`);
  }
  installDomHelpers();
  return makeEl(document, null, tag, cls ? { cls } : undefined);
}

// ---------------------------------------------------------------------------------------------
// Events and components

export interface EventRef {
  /** Stand-in only. */
  readonly owner?: Events;
}

interface Listener {
  name: string;
  callback: (...data: unknown[]) => unknown;
  ctx?: unknown;
  ref: EventRef;
}

export class Events {
  private listeners: Listener[] = [];

  on(name: string, callback: (...data: unknown[]) => unknown, ctx?: unknown): EventRef {
    const ref: EventRef = { owner: this };
    this.listeners.push({ name, callback, ctx, ref });
    return ref;
  }

  off(name: string, callback: (...data: unknown[]) => unknown): void {
    this.listeners = this.listeners.filter((l) => !(l.name === name && l.callback === callback));
  }

  offref(ref: EventRef): void {
    this.listeners = this.listeners.filter((l) => l.ref !== ref);
  }

  trigger(name: string, ...data: unknown[]): void {
    for (const l of [...this.listeners]) if (l.name === name) this.tryTrigger(l.ref, data);
  }

  tryTrigger(evt: EventRef, args: unknown[]): void {
    const l = this.listeners.find((x) => x.ref === evt);
    if (!l) return;
    try {
      l.callback.apply(l.ctx, args);
    } catch (e) {
      console.error(e);
    }
  }

  /** Stand-in only: how many listeners are attached (all, or for one event name). */
  listenerCount(name?: string): number {
    return name === undefined ? this.listeners.length : this.listeners.filter((l) => l.name === name).length;
  }
}

export class Component {
  private loaded = false;
  private cleanups: (() => unknown)[] = [];
  private children: Component[] = [];

  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    void this.onload();
    for (const child of this.children) child.load();
  }

  onload(): void | Promise<void> {}

  unload(): void {
    if (!this.loaded) return;
    this.loaded = false;
    for (const child of this.children.splice(0)) child.unload();
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
    this.onunload();
  }

  onunload(): void {}

  addChild<T extends Component>(component: T): T {
    this.children.push(component);
    if (this.loaded) component.load();
    return component;
  }

  removeChild<T extends Component>(component: T): T {
    const i = this.children.indexOf(component);
    if (i >= 0) {
      this.children.splice(i, 1);
      component.unload();
    }
    return component;
  }

  register(cb: () => unknown): void {
    this.cleanups.push(cb);
  }

  registerEvent(eventRef: EventRef): void {
    this.register(() => eventRef.owner?.offref(eventRef));
  }

  registerDomEvent<K extends keyof WindowEventMap>(el: Window, type: K, callback: (this: HTMLElement, ev: WindowEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  registerDomEvent<K extends keyof DocumentEventMap>(el: Document, type: K, callback: (this: HTMLElement, ev: DocumentEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  registerDomEvent<K extends keyof HTMLElementEventMap>(el: HTMLElement, type: K, callback: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  registerDomEvent(el: EventTarget, type: string, callback: (this: HTMLElement, ev: Event) => unknown, options?: boolean | AddEventListenerOptions): void {
    el.addEventListener(type, callback, options);
    this.register(() => el.removeEventListener(type, callback, options));
  }

  /** The interval is the window's (`window.setInterval`, as the app asks plugins to write it). */
  registerInterval(id: number): number {
    this.register(() => window.clearInterval(id));
    return id;
  }
}

// ---------------------------------------------------------------------------------------------
// Files and the vault

export interface FileStats {
  ctime: number;
  mtime: number;
  size: number;
}

export abstract class TAbstractFile {
  vault!: Vault;
  path = "";
  name = "";
  parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
  stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
  basename = "";
  extension = "";
}

export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];
  isRoot(): boolean {
    return this.path === "/";
  }
}

export interface DataWriteOptions {
  ctime?: number;
  mtime?: number;
}

export interface Stat {
  type: "file" | "folder";
  ctime: number;
  mtime: number;
  size: number;
}

export interface DataAdapter {
  getName(): string;
  exists(normalizedPath: string, sensitive?: boolean): Promise<boolean>;
  read(normalizedPath: string): Promise<string>;
  // Stand-in: the writes below reach only files outside the vault's list (the config folder, as a
  // plugin's data folder is); a vault note is written through the Vault, as plugins must.
  write(normalizedPath: string, data: string): Promise<void>;
  append(normalizedPath: string, data: string): Promise<void>;
  remove(normalizedPath: string): Promise<void>;
  rename(normalizedPath: string, normalizedNewPath: string): Promise<void>;
  mkdir(normalizedPath: string): Promise<void>;
  stat(normalizedPath: string): Promise<Stat | null>;
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length;

function parentPath(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "/" : path.slice(0, i);
}

function setNames(file: TAbstractFile, path: string): void {
  file.path = path;
  file.name = path.slice(path.lastIndexOf("/") + 1);
  if (file instanceof TFile) {
    const dot = file.name.lastIndexOf(".");
    file.basename = dot > 0 ? file.name.slice(0, dot) : file.name;
    file.extension = dot > 0 ? file.name.slice(dot + 1) : "";
  }
}

/** An in-memory vault. Writes fire `create`/`modify`/`delete`/`rename` like the app does. */
export class Vault extends Events {
  configDir = ".obsidian";
  adapter: DataAdapter;
  private files = new Map<string, TAbstractFile>();
  private contents = new Map<string, string>();
  private root: TFolder;
  private vaultName: string;
  /** Stand-in only: the time stamped on writes; tests may replace it. */
  now: () => number = () => Date.now();

  constructor(name = "Test vault") {
    super();
    this.vaultName = name;
    this.root = new TFolder();
    this.root.vault = this;
    this.root.path = "/";
    this.files.set("/", this.root);
    this.adapter = {
      getName: () => this.vaultName,
      exists: async (p) => this.files.has(normalizePath(p)) || this.hiddenFiles.has(normalizePath(p)) || this.hiddenFolders.has(normalizePath(p)),
      read: async (p) => {
        const text = this.contents.get(normalizePath(p)) ?? this.hiddenFiles.get(normalizePath(p));
        if (text === undefined) throw new Error(`ENOENT: no such file, open '${p}'`);
        return text;
      },
      write: async (p, data) => this.hiddenWrite(p, data),
      append: async (p, data) => this.hiddenWrite(p, (this.hiddenFiles.get(normalizePath(p)) ?? "") + data),
      remove: async (p) => {
        if (!this.hiddenFiles.delete(this.hiddenPath(p))) throw new Error(`ENOENT: no such file, unlink '${p}'`);
      },
      rename: async (from, to) => {
        const text = this.hiddenFiles.get(this.hiddenPath(from));
        if (text === undefined) throw new Error(`ENOENT: no such file, rename '${from}'`);
        this.hiddenFiles.delete(normalizePath(from));
        this.hiddenWrite(to, text);
      },
      mkdir: async (p) => void this.hiddenFolders.add(this.hiddenPath(p)),
      stat: async (p) => {
        const path = normalizePath(p);
        const text = this.hiddenFiles.get(path) ?? this.contents.get(path);
        if (text !== undefined) return { type: "file", ctime: 0, mtime: 0, size: byteLength(text) };
        return this.hiddenFolders.has(path) || this.files.get(path) instanceof TFolder ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : null;
      },
    };
  }

  /** Stand-in only: folders on disk the vault does not list (made through the adapter). */
  hiddenFolders = new Set<string>();

  private hiddenPath(p: string): string {
    const path = normalizePath(p);
    if (this.files.has(path)) throw new Error(`Stand-in adapter: "${path}" is a vault file; write it through the Vault.`);
    return path;
  }

  private hiddenWrite(p: string, data: string): void {
    this.hiddenFiles.set(this.hiddenPath(p), data);
  }

  /** Stand-in only: files on disk the vault does not list (e.g. under a dot folder). */
  hiddenFiles = new Map<string, string>();

  getName(): string {
    return this.vaultName;
  }

  getRoot(): TFolder {
    return this.root;
  }

  getAbstractFileByPath(path: string): TAbstractFile | null {
    return this.files.get(normalizePath(path)) ?? null;
  }

  getFileByPath(path: string): TFile | null {
    const f = this.getAbstractFileByPath(path);
    return f instanceof TFile ? f : null;
  }

  getFolderByPath(path: string): TFolder | null {
    const f = this.getAbstractFileByPath(path);
    return f instanceof TFolder ? f : null;
  }

  getFiles(): TFile[] {
    return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
  }

  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((f) => f.extension === "md");
  }

  getAllLoadedFiles(): TAbstractFile[] {
    return [...this.files.values()];
  }

  async create(path: string, data: string, options?: DataWriteOptions): Promise<TFile> {
    const file = this.createSilently(path, data, options);
    this.trigger("create", file);
    return file;
  }

  async createFolder(path: string): Promise<TFolder> {
    path = normalizePath(path);
    if (this.files.has(path)) throw new Error("Folder already exists.");
    const parent = this.parentFolder(path);
    const folder = new TFolder();
    folder.vault = this;
    setNames(folder, path);
    folder.parent = parent;
    parent.children.push(folder);
    this.files.set(path, folder);
    this.trigger("create", folder);
    return folder;
  }

  async read(file: TFile): Promise<string> {
    const text = this.contents.get(file.path);
    if (text === undefined) throw new Error(`ENOENT: no such file, open '${file.path}'`);
    return text;
  }

  async cachedRead(file: TFile): Promise<string> {
    return this.read(file);
  }

  async modify(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    if (!this.contents.has(file.path)) throw new Error(`ENOENT: no such file, open '${file.path}'`);
    this.contents.set(file.path, data);
    file.stat = { ...file.stat, mtime: options?.mtime ?? this.now(), size: byteLength(data) };
    this.trigger("modify", file);
  }

  async append(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    await this.modify(file, (this.contents.get(file.path) ?? "") + data, options);
  }

  async process(file: TFile, fn: (data: string) => string, options?: DataWriteOptions): Promise<string> {
    const next = fn(await this.read(file));
    await this.modify(file, next, options);
    return next;
  }

  async delete(file: TAbstractFile, _force?: boolean): Promise<void> {
    this.takeOut(file);
  }

  async trash(file: TAbstractFile, _system: boolean): Promise<void> {
    this.takeOut(file);
  }

  /** What deleting and trashing share here: the file, or the folder and all in it, gone, each with a `delete` event. */
  private takeOut(file: TAbstractFile): void {
    if (file instanceof TFolder) {
      for (const child of [...file.children]) this.takeOut(child);
    }
    this.files.delete(file.path);
    this.contents.delete(file.path);
    if (file.parent) file.parent.children.remove(file);
    this.trigger("delete", file);
  }

  async rename(file: TAbstractFile, newPath: string): Promise<void> {
    newPath = normalizePath(newPath);
    if (this.files.has(newPath)) throw new Error("Destination file already exists!");
    const parent = this.parentFolder(newPath);
    const moves: [TAbstractFile, string][] = [];
    const collect = (f: TAbstractFile, to: string) => {
      moves.push([f, f.path]);
      this.files.delete(f.path);
      const text = this.contents.get(f.path);
      this.contents.delete(f.path);
      setNames(f, to);
      this.files.set(to, f);
      if (text !== undefined) this.contents.set(to, text);
      if (f instanceof TFolder) for (const c of f.children) collect(c, `${to}/${c.name}`);
    };
    file.parent?.children.remove(file);
    collect(file, newPath);
    file.parent = parent;
    parent.children.push(file);
    for (const [f, oldPath] of moves) this.trigger("rename", f, oldPath);
  }

  /** Stand-in only: puts a file in place without events, as if it was there when the app started. */
  seed(path: string, data: string, mtime = this.now()): TFile {
    return this.createSilently(path, data, { mtime }, true);
  }

  private createSilently(path: string, data: string, options?: DataWriteOptions, makeFolders = false): TFile {
    path = normalizePath(path);
    if (this.files.has(path)) throw new Error("File already exists.");
    if (makeFolders) this.ensureFolders(parentPath(path));
    const parent = this.parentFolder(path);
    const file = new TFile();
    file.vault = this;
    setNames(file, path);
    file.parent = parent;
    const now = this.now();
    file.stat = { ctime: options?.ctime ?? now, mtime: options?.mtime ?? now, size: byteLength(data) };
    parent.children.push(file);
    this.files.set(path, file);
    this.contents.set(path, data);
    return file;
  }

  private ensureFolders(path: string): void {
    if (path === "/" || this.files.has(path)) return;
    this.ensureFolders(parentPath(path));
    const folder = new TFolder();
    folder.vault = this;
    setNames(folder, path);
    folder.parent = this.parentFolder(path);
    folder.parent.children.push(folder);
    this.files.set(path, folder);
  }

  private parentFolder(path: string): TFolder {
    const parent = this.files.get(parentPath(path));
    if (!(parent instanceof TFolder)) throw new Error(`ENOENT: folder "${parentPath(path)}" does not exist`);
    return parent;
  }
}

// Obsidian adds `remove` to arrays; the vault above uses it like the app does.
declare global {
  interface Array<T> {
    remove(target: T): void;
  }
}
if (!("remove" in Array.prototype)) {
  Object.defineProperty(Array.prototype, "remove", {
    value(this: unknown[], target: unknown) {
      const i = this.indexOf(target);
      if (i >= 0) this.splice(i, 1);
    },
    configurable: true,
    writable: true,
  });
}

// ---------------------------------------------------------------------------------------------
// App, workspace, secrets

export class SecretStorage extends Events {
  private secrets = new Map<string, string>();
  /** As the app's (obsidian.d.ts): an id of lowercase letters, digits and dashes, else it throws. */
  setSecret(id: string, secret: string): void {
    if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`Invalid secret ID "${id}": use lowercase letters, digits and dashes.`);
    this.secrets.set(id, secret);
  }
  getSecret(id: string): string | null {
    return this.secrets.get(id) ?? null;
  }
  listSecrets(): string[] {
    return [...this.secrets.keys()];
  }
}

export interface OpenViewState {
  state?: Record<string, unknown>;
  eState?: Record<string, unknown>;
  active?: boolean;
  group?: WorkspaceLeaf;
}

export type PaneType = "tab" | "split" | "window";

export class WorkspaceLeaf extends Events {
  view: View | null = null;
  /** Stand-in only: what was opened in this leaf, latest last. */
  opened: { file: TFile; state?: OpenViewState }[] = [];
  constructor(readonly app: App) {
    super();
  }
  async openFile(file: TFile, openState?: OpenViewState): Promise<void> {
    this.opened.push({ file, state: openState });
  }
  async open(view: View): Promise<View> {
    this.view = view;
    return view;
  }
  async setViewState(viewState: { type: string; active?: boolean; state?: Record<string, unknown> }): Promise<void> {
    const creator = this.app.workspace.viewCreators.get(viewState.type);
    if (creator) {
      const view = creator(this);
      this.view = view;
      view.load();
      // The leaf opens and closes its view, as the app's does; to plugins the two are protected.
      await view["onOpen"]();
    }
  }
  getViewState(): { type: string } {
    return { type: this.view?.getViewType() ?? "empty" };
  }
  getDisplayText(): string {
    return this.view?.getDisplayText() ?? "";
  }
  detach(): void {
    if (this.view) {
      void this.view["onClose"]();
      this.view.unload();
    }
    this.app.workspace.leaves.remove(this);
  }
}

export class Workspace extends Events {
  layoutReady = false;
  containerEl: HTMLElement | null = typeof document !== "undefined" ? newEl("div", "workspace") : null;
  /** Stand-in only. */
  leaves: WorkspaceLeaf[] = [];
  /** Stand-in only. */
  viewCreators = new Map<string, (leaf: WorkspaceLeaf) => View>();
  /** Stand-in only: every openLinkText call. */
  openedLinks: { linktext: string; sourcePath: string; newLeaf?: PaneType | boolean; state?: OpenViewState }[] = [];
  private readyCallbacks: (() => unknown)[] = [];

  constructor(readonly app: App) {
    super();
  }

  onLayoutReady(callback: () => unknown): void {
    if (this.layoutReady) callback();
    else this.readyCallbacks.push(callback);
  }

  /** Stand-in only: what the app does once the workspace has loaded. */
  triggerLayoutReady(): void {
    this.layoutReady = true;
    for (const cb of this.readyCallbacks.splice(0)) cb();
    this.trigger("layout-change");
  }

  async openLinkText(linktext: string, sourcePath: string, newLeaf?: PaneType | boolean, openViewState?: OpenViewState): Promise<void> {
    this.openedLinks.push({ linktext, sourcePath, newLeaf, state: openViewState });
  }

  getLeaf(_newLeaf?: PaneType | boolean | "split"): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    return leaf;
  }

  getRightLeaf(_split: boolean): WorkspaceLeaf | null {
    return this.getLeaf();
  }

  getLeavesOfType(viewType: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view?.getViewType() === viewType);
  }

  detachLeavesOfType(viewType: string): void {
    for (const l of this.getLeavesOfType(viewType)) l.detach();
  }

  async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}

  getActiveFile(): TFile | null {
    return null;
  }

  /** Stand-in only: the leaf in the main area that was active last (set by tests and the workbench). */
  mostRecentLeaf: WorkspaceLeaf | null = null;

  getMostRecentLeaf(): WorkspaceLeaf | null {
    return this.mostRecentLeaf;
  }

  getActiveViewOfType<T extends View>(type: abstract new (...args: never[]) => T): T | null {
    const view = this.mostRecentLeaf?.view;
    return view instanceof type ? view : null;
  }
}

export class MetadataCache extends Events {
  getFileCache(_file: TFile): null {
    return null;
  }
  getFirstLinkpathDest(linkpath: string, _sourcePath: string): TFile | null {
    return null;
  }
}

export interface Command {
  id: string;
  name: string;
  icon?: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
  /** The stand-in never calls it: a test hands it as much of an editor and a view as it needs. */
  editorCallback?: (editor: unknown, ctx: unknown) => unknown;
  hotkeys?: { modifiers: string[]; key: string }[];
}

/** Like the app's: trashing follows the user's choice (here: the system trash, as the default). */
export class FileManager {
  constructor(private readonly app: App) {}
  async trashFile(file: TAbstractFile): Promise<void> {
    await this.app.vault.trash(file, true);
  }
}

export class App {
  vault: Vault;
  workspace: Workspace;
  fileManager: FileManager = new FileManager(this);
  metadataCache = new MetadataCache();
  secretStorage = new SecretStorage();
  /** Undocumented in the API but present in the app: a stable id for this vault. */
  appId: string;
  /** Stand-in only: commands added by plugins, by full id. */
  commands = new Map<string, Command>();
  /** Stand-in only: status bar and settings tabs added by plugins. */
  statusBarEl: HTMLElement | null = typeof document !== "undefined" ? newEl("div", "status-bar") : null;
  settingTabs: PluginSettingTab[] = [];

  constructor(options: { vault?: Vault; appId?: string } = {}) {
    this.vault = options.vault ?? new Vault();
    this.workspace = new Workspace(this);
    this.appId = options.appId ?? "test-app-id";
  }

  isDarkMode(): boolean {
    return false;
  }
}

export interface PluginManifest {
  dir?: string;
  id: string;
  name: string;
  author: string;
  version: string;
  minAppVersion: string;
  description: string;
  authorUrl?: string;
  isDesktopOnly?: boolean;
}

export abstract class Plugin extends Component {
  app: App;
  manifest: PluginManifest;
  /** Stand-in only: what loadData returns and saveData stores (data.json). */
  storedData: unknown = null;

  constructor(app: App, manifest: PluginManifest) {
    super();
    this.app = app;
    this.manifest = manifest;
  }

  addStatusBarItem(): HTMLElement {
    const el = newEl("div", "status-bar-item");
    this.app.statusBarEl?.appendChild(el);
    this.register(() => el.remove());
    return el;
  }

  addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
    const el = newEl("div", "side-dock-ribbon-action");
    el.setAttribute("aria-label", title);
    el.addEventListener("click", callback);
    this.register(() => el.remove());
    return el;
  }

  addCommand(command: Command): Command {
    const full = { ...command, id: `${this.manifest.id}:${command.id}` };
    this.app.commands.set(full.id, full);
    this.register(() => this.app.commands.delete(full.id));
    return full;
  }

  removeCommand(commandId: string): void {
    this.app.commands.delete(`${this.manifest.id}:${commandId}`);
  }

  addSettingTab(settingTab: PluginSettingTab): void {
    this.app.settingTabs.push(settingTab);
    // As 1.13 does: the definitions are read at once, for the settings search.
    if (requireApiVersion("1.13.0")) settingTab.update();
    this.register(() => this.app.settingTabs.remove(settingTab));
  }

  registerView(type: string, viewCreator: (leaf: WorkspaceLeaf) => View): void {
    this.app.workspace.viewCreators.set(type, viewCreator);
    // As in the app: when a plugin's view type goes away, its open views are closed with it.
    this.register(() => {
      this.app.workspace.viewCreators.delete(type);
      this.app.workspace.detachLeavesOfType(type);
    });
  }

  async loadData(): Promise<unknown> {
    return this.storedData === null ? null : structuredClone(this.storedData);
  }

  async saveData(data: unknown): Promise<void> {
    this.storedData = structuredClone(data);
  }

  onUserEnable(): void {}
}

// ---------------------------------------------------------------------------------------------
// Views, modals, settings

export abstract class View extends Component {
  app: App;
  icon = "";
  navigation = false;
  leaf: WorkspaceLeaf;
  containerEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super();
    this.leaf = leaf;
    this.app = leaf.app;
    this.containerEl = newEl("div", "workspace-leaf-content");
  }
  protected async onOpen(): Promise<void> {}
  protected async onClose(): Promise<void> {}
  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return this.icon;
  }
  getState(): Record<string, unknown> {
    return {};
  }
  async setState(_state: unknown, _result: { history: boolean }): Promise<void> {}
  getEphemeralState(): Record<string, unknown> {
    return {};
  }
  setEphemeralState(_state: unknown): void {}
  onResize(): void {}
}

export abstract class ItemView extends View {
  contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.containerEl.createDiv("view-header");
    this.contentEl = this.containerEl.createDiv("view-content");
  }
  addAction(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
    const el = this.containerEl.createEl("a", { cls: "view-action", attr: { "aria-label": title } });
    el.addEventListener("click", callback);
    return el;
  }
}

export interface EditorPosition {
  line: number;
  ch: number;
}

/** Stand-in: an editor over a string, enough for inserting at the cursor. */
export class Editor {
  /** Stand-in only. */
  private text: string;
  private cursor: EditorPosition = { line: 0, ch: 0 };
  constructor(text = "") {
    this.text = text;
  }
  getValue(): string {
    return this.text;
  }
  setValue(content: string): void {
    this.text = content;
  }
  getCursor(_side?: "from" | "to" | "head" | "anchor"): EditorPosition {
    return { ...this.cursor };
  }
  setCursor(pos: EditorPosition | number, ch?: number): void {
    this.cursor = typeof pos === "number" ? { line: pos, ch: ch ?? 0 } : { ...pos };
  }
  getSelection(): string {
    return "";
  }
  replaceSelection(replacement: string, _origin?: string): void {
    const lines = this.text.split("\n");
    const offset = lines.slice(0, this.cursor.line).reduce((n, l) => n + l.length + 1, 0) + this.cursor.ch;
    this.text = this.text.slice(0, offset) + replacement + this.text.slice(offset);
    const added = replacement.split("\n");
    this.cursor =
      added.length === 1
        ? { line: this.cursor.line, ch: this.cursor.ch + replacement.length }
        : { line: this.cursor.line + added.length - 1, ch: added[added.length - 1].length };
  }
}

export class MarkdownView extends ItemView {
  editor: Editor;
  file: TFile | null;
  constructor(leaf: WorkspaceLeaf, file: TFile | null = null, text = "") {
    super(leaf);
    this.file = file;
    this.editor = new Editor(text);
  }
  getViewType(): string {
    return "markdown";
  }
  getDisplayText(): string {
    return this.file?.basename ?? "";
  }
}

/** Stand-in: a context menu as a list of items in the document; `menus` holds every menu shown. */
export class MenuItem {
  /** Stand-in only. */
  title = "";
  /** Stand-in only. */
  callback: ((evt: MouseEvent | KeyboardEvent) => unknown) | null = null;
  setTitle(title: string | DocumentFragment): this {
    this.title = typeof title === "string" ? title : (title.textContent ?? "");
    return this;
  }
  setIcon(_icon: string | null): this {
    return this;
  }
  onClick(callback: (evt: MouseEvent | KeyboardEvent) => unknown): this {
    this.callback = callback;
    return this;
  }
}

export class Menu extends Component {
  /** Stand-in only. */
  items: MenuItem[] = [];
  /** Stand-in only: menus currently shown. */
  static shown: Menu[] = [];
  addItem(cb: (item: MenuItem) => unknown): this {
    const item = new MenuItem();
    cb(item);
    this.items.push(item);
    return this;
  }
  addSeparator(): this {
    return this;
  }
  showAtMouseEvent(_evt: MouseEvent): this {
    Menu.shown.push(this);
    return this;
  }
  showAtPosition(_position: { x: number; y: number }): this {
    Menu.shown.push(this);
    return this;
  }
  hide(): this {
    Menu.shown.remove(this);
    return this;
  }
  close(): void {
    this.hide();
  }
}

/** Stand-in only: every modal currently open, oldest first. */
export const openModals: Modal[] = [];

export type Modifier = "Mod" | "Ctrl" | "Meta" | "Shift" | "Alt";

/**
 * A modal's (or the app's) keys, as the app runs them: on keydown in the active scope, a handler
 * whose modifiers and key match exactly is called, and one that returns false stops the key.
 * "Mod" is Ctrl here (Cmd on macOS, which the stand-in does not play).
 */
export class Scope {
  private readonly handlers: { modifiers: Modifier[]; key: string | null; func: (evt: KeyboardEvent) => unknown }[] = [];

  register(modifiers: Modifier[] | null, key: string | null, func: (evt: KeyboardEvent, ctx: unknown) => unknown): object {
    const handler = { modifiers: modifiers ?? [], key, func: (evt: KeyboardEvent) => func(evt, {}) };
    this.handlers.push(handler);
    return handler;
  }

  unregister(handler: object): void {
    const i = this.handlers.indexOf(handler as (typeof this.handlers)[number]);
    if (i >= 0) this.handlers.splice(i, 1);
  }

  /** Stand-in only: runs the matching handler; true when it stopped the key. */
  handle(evt: KeyboardEvent): boolean {
    const held = new Set<Modifier>([...(evt.ctrlKey ? (["Mod", "Ctrl"] as const) : []), ...(evt.metaKey ? (["Meta"] as const) : []), ...(evt.shiftKey ? (["Shift"] as const) : []), ...(evt.altKey ? (["Alt"] as const) : [])]);
    for (const h of this.handlers) {
      if (h.key !== null && h.key !== evt.key) continue;
      const wanted = new Set(h.modifiers.flatMap((m) => (m === "Mod" ? ["Mod", "Ctrl"] : [m])));
      if (wanted.size !== held.size || [...wanted].some((m) => !held.has(m as Modifier))) continue;
      if (h.func(evt) === false) {
        evt.preventDefault();
        return true;
      }
    }
    return false;
  }
}

export class Modal {
  app: App;
  /** Its keys while it is open (Esc is the app's own, below). */
  scope = new Scope();
  containerEl: HTMLElement;
  modalEl: HTMLElement;
  titleEl: HTMLElement;
  contentEl: HTMLElement;
  shouldRestoreSelection = true;
  private closeCallback: (() => unknown) | null = null;

  constructor(app: App) {
    this.app = app;
    this.containerEl = newEl("div", "modal-container");
    this.modalEl = this.containerEl.createDiv("modal");
    this.titleEl = this.modalEl.createDiv("modal-title");
    this.contentEl = this.modalEl.createDiv("modal-content");
  }

  open(): void {
    openModals.push(this);
    document.body.appendChild(this.containerEl);
    // As in the app: Esc closes the modal on top, and only that one.
    document.addEventListener("keydown", this.onEscape, true);
    void this.onOpen();
  }

  close(): void {
    const i = openModals.indexOf(this);
    if (i < 0) return;
    openModals.splice(i, 1);
    document.removeEventListener("keydown", this.onEscape, true);
    this.containerEl.remove();
    this.onClose();
    this.closeCallback?.();
  }

  private readonly onEscape = (evt: KeyboardEvent): void => {
    if (openModals[openModals.length - 1] !== this) return;
    if (evt.key !== "Escape") {
      if (this.scope.handle(evt)) evt.stopPropagation();
      return;
    }
    evt.preventDefault();
    evt.stopPropagation();
    this.close();
  };

  onOpen(): Promise<void> | void {}
  onClose(): void {}

  setTitle(title: string): this {
    this.titleEl.setText(title);
    return this;
  }

  setContent(content: string | DocumentFragment): this {
    this.contentEl.setText(content);
    return this;
  }

  setCloseCallback(callback: () => unknown): this {
    this.closeCallback = callback;
    return this;
  }
}

export interface Instruction {
  command: string;
  purpose: string;
}

export abstract class SuggestModal<T> extends Modal {
  limit = 50;
  emptyStateText = "No results found.";
  inputEl: HTMLInputElement;
  resultContainerEl: HTMLElement;
  /** Stand-in only: the suggestions last rendered. */
  shownSuggestions: T[] = [];
  private instructionsEl: HTMLElement;

  constructor(app: App) {
    super(app);
    this.modalEl.addClass("prompt");
    this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input", type: "text" });
    this.resultContainerEl = this.modalEl.createDiv("prompt-results");
    this.instructionsEl = this.modalEl.createDiv("prompt-instructions");
    this.inputEl.addEventListener("input", () => void this.updateSuggestions());
  }

  setPlaceholder(placeholder: string): void {
    this.inputEl.placeholder = placeholder;
  }

  setInstructions(instructions: Instruction[]): void {
    this.instructionsEl.empty();
    for (const i of instructions) {
      const row = this.instructionsEl.createDiv("prompt-instruction");
      row.createSpan({ cls: "prompt-instruction-command", text: i.command });
      row.createSpan({ text: i.purpose });
    }
  }

  /** Stand-in only: the suggestion ↑↓ has chosen. */
  selectedIndex = 0;

  override open(): void {
    super.open();
    this.inputEl.focus();
    this.inputEl.addEventListener("keydown", (evt) => this.onKey(evt));
    void this.updateSuggestions();
  }

  /** As in the app: ↑↓ move the selection, Enter chooses it. */
  private onKey(evt: KeyboardEvent): void {
    const count = this.shownSuggestions.length;
    if (count === 0) return;
    if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
      evt.preventDefault();
      this.selectedIndex = (this.selectedIndex + (evt.key === "ArrowDown" ? 1 : count - 1)) % count;
      this.markSelected();
    } else if (evt.key === "Enter" && !evt.isComposing && !evt.ctrlKey && !evt.metaKey && !evt.altKey) {
      // As in the app: Enter with a modifier is left to the modal's scope (obsidian-api#85).
      evt.preventDefault();
      this.selectSuggestion(this.shownSuggestions[this.selectedIndex], evt);
    }
  }

  private markSelected(): void {
    Array.from(this.resultContainerEl.children).forEach((el, i) => el.toggleClass("is-selected", i === this.selectedIndex));
  }

  /** Stand-in only (the app does this on every keystroke): asks for suggestions and renders them. */
  async updateSuggestions(): Promise<void> {
    const query = this.inputEl.value;
    const suggestions = await this.getSuggestions(query);
    if (query !== this.inputEl.value) return; // a newer keystroke owns the list
    this.shownSuggestions = suggestions.slice(0, this.limit);
    this.resultContainerEl.empty();
    if (this.shownSuggestions.length === 0) {
      this.onNoSuggestion();
      return;
    }
    for (const s of this.shownSuggestions) {
      const el = this.resultContainerEl.createDiv("suggestion-item");
      this.renderSuggestion(s, el);
      el.addEventListener("click", (evt) => this.selectSuggestion(s, evt));
    }
    this.selectedIndex = 0;
    this.markSelected();
  }

  onNoSuggestion(): void {
    this.resultContainerEl.createDiv({ cls: "suggestion-empty", text: this.emptyStateText });
  }

  selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
    this.close();
    this.onChooseSuggestion(value, evt);
  }

  /** As in the app: the suggestion ↑↓ has chosen. */
  selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
    const chosen = this.shownSuggestions[this.selectedIndex];
    if (chosen !== undefined) this.selectSuggestion(chosen, evt);
  }

  abstract getSuggestions(query: string): T[] | Promise<T[]>;
  abstract renderSuggestion(value: T, el: HTMLElement): void;
  abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

/** Stand-in only: every notice shown, oldest first. */
export const notices: Notice[] = [];

export class Notice {
  noticeEl: HTMLElement;
  containerEl: HTMLElement;
  messageEl: HTMLElement;
  /** Stand-in only. */
  message: string;
  /** Stand-in only. */
  duration: number | undefined;

  constructor(message: string | DocumentFragment, duration?: number) {
    // As in the app: one container at the top of the window; each notice goes after its time
    // (5 s unless told; 0 keeps it until hidden) or when clicked.
    this.containerEl = noticeContainer();
    this.noticeEl = this.containerEl.createDiv("notice");
    this.messageEl = this.noticeEl.createDiv("notice-message");
    this.message = "";
    this.duration = duration;
    this.setMessage(message);
    notices.push(this);
    this.noticeEl.addEventListener("click", () => this.hide());
    if (duration !== 0 && typeof window !== "undefined") window.setTimeout(() => this.hide(), duration ?? 5000);
  }

  setMessage(message: string | DocumentFragment): this {
    this.messageEl.setText(message);
    this.message = this.messageEl.textContent ?? "";
    return this;
  }

  hide(): void {
    this.noticeEl.remove();
  }
}

function noticeContainer(): HTMLElement {
  const existing = typeof document !== "undefined" ? document.body?.querySelector<HTMLElement>(":scope > .notice-container") : null;
  if (existing) return existing;
  const container = newEl("div", "notice-container");
  if (typeof document !== "undefined" && document.body) document.body.appendChild(container);
  return container;
}

export abstract class BaseComponent {
  disabled = false;
  then(cb: (component: this) => unknown): this {
    cb(this);
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    return this;
  }
}

export abstract class ValueComponent<T> extends BaseComponent {
  abstract getValue(): T;
  abstract setValue(value: T): this;
}

/** What text inputs and text areas share, as in the app. */
export class AbstractTextComponent<T extends HTMLInputElement | HTMLTextAreaElement> extends ValueComponent<string> {
  inputEl: T;
  private changeCallback: ((value: string) => unknown) | null = null;
  constructor(inputEl: T) {
    super();
    this.inputEl = inputEl;
    this.inputEl.addEventListener("input", () => this.onChanged());
  }
  override setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    this.inputEl.disabled = disabled;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  setPlaceholder(placeholder: string): this {
    this.inputEl.placeholder = placeholder;
    return this;
  }
  onChanged(): void {
    this.changeCallback?.(this.getValue());
  }
  onChange(callback: (value: string) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class TextComponent extends AbstractTextComponent<HTMLInputElement> {
  constructor(containerEl: HTMLElement) {
    super(containerEl.createEl("input", { type: "text" }));
  }
}

export class ToggleComponent extends ValueComponent<boolean> {
  toggleEl: HTMLElement;
  private on = false;
  private changeCallback: ((value: boolean) => unknown) | null = null;
  /** As in the app: the switch is a container around a real checkbox. */
  private readonly inputEl: HTMLInputElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.toggleEl = containerEl.createDiv("checkbox-container");
    this.inputEl = this.toggleEl.createEl("input", { type: "checkbox", attr: { tabindex: 0 } });
    this.toggleEl.addEventListener("click", (evt) => {
      evt.preventDefault();
      this.onClick();
    });
    this.inputEl.addEventListener("keydown", (evt) => {
      if (evt.key !== " " && evt.key !== "Enter") return;
      evt.preventDefault();
      this.onClick();
    });
  }
  getValue(): boolean {
    return this.on;
  }
  setValue(on: boolean): this {
    this.on = on;
    this.toggleEl.toggleClass("is-enabled", on);
    this.inputEl.checked = on;
    return this;
  }
  setTooltip(tooltip: string): this {
    this.toggleEl.setAttr("aria-label", tooltip);
    return this;
  }
  onClick(): void {
    if (this.disabled) return;
    this.setValue(!this.on);
    this.changeCallback?.(this.on);
  }
  onChange(callback: (value: boolean) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class DropdownComponent extends ValueComponent<string> {
  selectEl: HTMLSelectElement;
  private changeCallback: ((value: string) => unknown) | null = null;
  constructor(containerEl: HTMLElement) {
    super();
    this.selectEl = containerEl.createEl("select", { cls: "dropdown" });
    this.selectEl.addEventListener("change", () => this.changeCallback?.(this.getValue()));
  }
  addOption(value: string, display: string): this {
    this.selectEl.createEl("option", { value, text: display });
    return this;
  }
  addOptions(options: Record<string, string>): this {
    for (const [value, display] of Object.entries(options)) this.addOption(value, display);
    return this;
  }
  getValue(): string {
    return this.selectEl.value;
  }
  setValue(value: string): this {
    this.selectEl.value = value;
    return this;
  }
  onChange(callback: (value: string) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class ButtonComponent extends BaseComponent {
  buttonEl: HTMLButtonElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.buttonEl = containerEl.createEl("button");
  }
  override setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    this.buttonEl.disabled = disabled;
    return this;
  }
  setCta(): this {
    this.buttonEl.addClass("mod-cta");
    return this;
  }
  removeCta(): this {
    this.buttonEl.removeClass("mod-cta");
    return this;
  }
  setWarning(): this {
    this.buttonEl.addClass("mod-warning");
    return this;
  }
  setTooltip(tooltip: string): this {
    this.buttonEl.setAttr("aria-label", tooltip);
    return this;
  }
  setButtonText(name: string): this {
    this.buttonEl.setText(name);
    return this;
  }
  setIcon(icon: string): this {
    setIcon(this.buttonEl, icon);
    return this;
  }
  setClass(cls: string): this {
    this.buttonEl.addClass(cls);
    return this;
  }
  onClick(callback: (evt: MouseEvent) => unknown): this {
    this.buttonEl.addEventListener("click", (evt) => void callback(evt));
    return this;
  }
}

export class TextAreaComponent extends AbstractTextComponent<HTMLTextAreaElement> {
  constructor(containerEl: HTMLElement) {
    super(containerEl.createEl("textarea"));
  }
}

export class ExtraButtonComponent extends BaseComponent {
  extraSettingsEl: HTMLElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.extraSettingsEl = containerEl.createDiv({ cls: "clickable-icon extra-setting-button", attr: { role: "button", tabindex: 0 } });
  }
  override setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    this.extraSettingsEl.toggleClass("is-disabled", disabled);
    return this;
  }
  setTooltip(tooltip: string): this {
    this.extraSettingsEl.setAttr("aria-label", tooltip);
    return this;
  }
  setIcon(icon: string): this {
    setIcon(this.extraSettingsEl, icon);
    return this;
  }
  onClick(callback: () => unknown): this {
    this.extraSettingsEl.addEventListener("click", () => {
      if (!this.disabled) callback();
    });
    return this;
  }
}

/**
 * Picks a secret from the app's secret storage; its value is the secret's *id*, never the secret.
 * Stand-in: a select over the stored ids plus a field to store a new secret under a new id.
 */
export class SecretComponent extends BaseComponent {
  /** Stand-in only. */
  selectEl: HTMLSelectElement;
  /** Stand-in only: type a key here and press Enter to store it under the chosen id. */
  keyInputEl: HTMLInputElement;
  private value = "";
  private changeCallback: ((value: string) => unknown) | null = null;
  constructor(
    private readonly app: App,
    containerEl: HTMLElement,
  ) {
    super();
    const wrap = containerEl.createDiv("secret-component");
    this.selectEl = wrap.createEl("select", { cls: "dropdown" });
    this.keyInputEl = wrap.createEl("input", { type: "password", placeholder: "Paste a key and press Enter" });
    this.selectEl.addEventListener("change", () => this.choose(this.selectEl.value));
    this.keyInputEl.addEventListener("keydown", (evt) => {
      if (evt.key !== "Enter" || this.value === "") return;
      this.app.secretStorage.setSecret(this.value, this.keyInputEl.value);
      this.keyInputEl.value = "";
      this.refresh();
    });
    this.refresh();
  }
  setValue(value: string): this {
    this.value = value;
    this.refresh();
    return this;
  }
  onChange(cb: (value: string) => unknown): this {
    this.changeCallback = cb;
    return this;
  }
  /** Stand-in only: what the user does when picking a secret id. */
  choose(id: string): void {
    this.value = id;
    this.refresh();
    this.changeCallback?.(id);
  }
  private refresh(): void {
    this.selectEl.empty();
    const ids = new Set([...this.app.secretStorage.listSecrets(), ...(this.value ? [this.value] : [])]);
    this.selectEl.createEl("option", { value: "", text: "None" });
    for (const id of ids) {
      const stored = this.app.secretStorage.getSecret(id) !== null;
      this.selectEl.createEl("option", { value: id, text: stored ? id : `${id} (empty)` });
    }
    this.selectEl.value = this.value;
  }
}

export class Setting {
  settingEl: HTMLElement;
  infoEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  components: BaseComponent[] = [];

  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv("setting-item");
    this.infoEl = this.settingEl.createDiv("setting-item-info");
    this.nameEl = this.infoEl.createDiv("setting-item-name");
    this.descEl = this.infoEl.createDiv("setting-item-description");
    this.controlEl = this.settingEl.createDiv("setting-item-control");
  }
  setName(name: string | DocumentFragment): this {
    this.nameEl.setText(name);
    return this;
  }
  setDesc(desc: string | DocumentFragment): this {
    this.descEl.setText(desc);
    return this;
  }
  setClass(cls: string): this {
    this.settingEl.addClass(cls);
    return this;
  }
  setHeading(): this {
    this.settingEl.addClass("setting-item-heading");
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.settingEl.toggleClass("is-disabled", disabled);
    for (const c of this.components) c.setDisabled(disabled);
    return this;
  }
  addText(cb: (component: TextComponent) => unknown): this {
    return this.add(new TextComponent(this.controlEl), cb);
  }
  addToggle(cb: (component: ToggleComponent) => unknown): this {
    return this.add(new ToggleComponent(this.controlEl), cb);
  }
  addDropdown(cb: (component: DropdownComponent) => unknown): this {
    return this.add(new DropdownComponent(this.controlEl), cb);
  }
  addButton(cb: (component: ButtonComponent) => unknown): this {
    return this.add(new ButtonComponent(this.controlEl), cb);
  }
  addTextArea(cb: (component: TextAreaComponent) => unknown): this {
    return this.add(new TextAreaComponent(this.controlEl), cb);
  }
  addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
    return this.add(new ExtraButtonComponent(this.controlEl), cb);
  }
  addComponent<T extends BaseComponent>(cb: (el: HTMLElement) => T): this {
    this.components.push(cb(this.controlEl));
    return this;
  }
  then(cb: (setting: this) => unknown): this {
    cb(this);
    return this;
  }
  clear(): this {
    this.controlEl.empty();
    this.components = [];
    return this;
  }
  private add<C extends BaseComponent>(component: C, cb: (component: C) => unknown): this {
    this.components.push(component);
    cb(component);
    return this;
  }
}

/**
 * A tab as Obsidian 1.13 has it. The app asks `getSettingDefinitions()` when the tab is added and
 * each time it is shown; a tab that returns rows is drawn from them (and its `display()` is not
 * called), one that returns none by its `display()`. The stand-in draws groups and `render` rows;
 * `control`, `action`, list and page rows throw, so a test cannot pass on rows it never drew.
 */
/**
 * A definition from `getSettingDefinitions()`, as far as the stand-in reads one: obsidian.d.ts's
 * SettingDefinitionItem (a row, or a group, list or page of them) with every kind's fields optional,
 * since the stand-in checks a definition's kind before it draws it.
 */
export interface SettingDefinitionItem {
  type?: "group" | "list" | "page";
  name?: string;
  desc?: string | DocumentFragment;
  heading?: string;
  aliases?: string[];
  items?: SettingDefinitionItem[];
  /** The stand-in draws a row into no group of its own: `group` is null. */
  render?: (setting: Setting, group: null) => void | (() => void);
  control?: unknown;
  action?: unknown;
  visible?: boolean | (() => boolean);
}

export abstract class SettingTab {
  icon = "";
  app: App;
  containerEl: HTMLElement;
  settingItems: SettingDefinitionItem[] = [];
  /** The rows drawn from definitions: each with its `visible` and the cleanup its `render` gave back. */
  #drawnRows: { setting: Setting; visible: boolean | (() => boolean) | undefined; cleanup: (() => void) | undefined }[] = [];
  /** True while the tab is on screen drawn from its definitions (so `update` draws it again). */
  #drawnFromDefinitions = false;
  constructor(app: App) {
    this.app = app;
    this.containerEl = newEl("div", "vertical-tab-content");
  }
  getSettingDefinitions(): SettingDefinitionItem[] {
    return [];
  }
  /** Stores the definitions; a tab on screen drawn from them is drawn again. */
  update(): void {
    onlySince("1.13.0", "SettingTab.update");
    this.settingItems = this.getSettingDefinitions();
    if (this.#drawnFromDefinitions) this.#drawDefinitions();
  }
  /** Shows or hides each drawn row as its `visible` says now. */
  refreshDomState(): void {
    onlySince("1.13.0", "SettingTab.refreshDomState");
    for (const row of this.#drawnRows) showRow(row.setting, isTrue(row.visible));
  }
  /** The app's own drawing of the definitions (what a 1.13 tab that does not override it shows). */
  display(): void {
    this.settingItems = this.getSettingDefinitions();
    this.#drawDefinitions();
  }
  hide(): void {
    this.#takeDownRows();
    this.#drawnFromDefinitions = false;
    this.containerEl.empty();
  }
  /**
   * Stand-in only: what the settings modal of an app at `version` does on opening the tab. From
   * then on the stand-in is that app: below 1.13 it never asks for definitions, `requireApiVersion`
   * answers as that version, and `update` and `refreshDomState` throw, as methods it lacks would.
   */
  open(version = apiVersion): void {
    appVersion = version;
    if (!requireApiVersion("1.13.0")) return this.display();
    this.update();
    if (this.settingItems.length > 0) this.#drawDefinitions();
    else this.display();
  }
  #drawDefinitions(): void {
    this.#takeDownRows();
    this.containerEl.empty();
    this.#drawnFromDefinitions = true;
    for (const item of this.settingItems) {
      if (item.type === "group") this.#drawGroup(item);
      else this.#drawRow(this.containerEl, item);
    }
  }
  #drawGroup(group: SettingDefinitionItem): void {
    if (group.type !== "group") throw new Error(`The stand-in does not draw "${String(group.type)}" definitions.`);
    if (!isTrue(group.visible)) return;
    const groupEl = this.containerEl.createDiv("setting-group");
    if (group.heading) new Setting(groupEl).setName(group.heading).setHeading();
    const itemsEl = groupEl.createDiv("setting-items");
    for (const item of group.items ?? []) this.#drawRow(itemsEl, item);
  }
  #drawRow(parent: HTMLElement, item: SettingDefinitionItem): void {
    if (typeof item.render !== "function") throw new Error(`The stand-in draws only render rows ("${String(item.name)}" has none).`);
    if (typeof item.name !== "string") throw new Error("A setting definition needs a name.");
    const setting = new Setting(parent).setName(item.name);
    if (item.desc !== undefined) setting.setDesc(item.desc);
    const cleanup = item.render(setting, null);
    showRow(setting, isTrue(item.visible));
    this.#drawnRows.push({ setting, visible: item.visible, cleanup: typeof cleanup === "function" ? cleanup : undefined });
  }
  #takeDownRows(): void {
    for (const row of this.#drawnRows) row.cleanup?.();
    this.#drawnRows = [];
  }
}

/** A row out of sight as the app puts it (`toggle`: `display: none`, which a row's own `display: flex` cannot undo). */
function showRow(setting: Setting, shown: boolean): void {
  setting.settingEl.toggle(shown);
}

function isTrue(predicate: boolean | (() => boolean) | undefined): boolean {
  return typeof predicate === "function" ? predicate() : predicate !== false;
}

export abstract class PluginSettingTab extends SettingTab {
  constructor(app: App, readonly plugin: Plugin) {
    super(app);
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering, icons, network, utilities

export class MarkdownRenderer {
  /**
   * Stand-in: a small markdown renderer that behaves like the app where it matters to us —
   * links, bare URLs, wikilinks, embeds, images and raw HTML become elements (so tests can see
   * whether untrusted text was neutralised), backslash escapes become literal characters, code is
   * literal. Blocks are appended straight into `el`, as in the app.
   */
  static async render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
    /** Stand-in only: every call, so tests can check what went through the renderer. */
    MarkdownRenderer.calls.push(markdown);
    const template = createEl("template");
    template.innerHTML = markdownToHtml(markdown);
    // The app sanitises rendered HTML: scripts and event handler attributes do not survive.
    for (const bad of Array.from(template.content.querySelectorAll("script"))) bad.remove();
    for (const node of Array.from(template.content.querySelectorAll("*"))) {
      for (const attr of Array.from(node.attributes)) if (/^on/i.test(attr.name)) node.removeAttribute(attr.name);
    }
    // As in reading view: every code block has a button that copies its text exactly.
    for (const button of Array.from(template.content.querySelectorAll<HTMLButtonElement>("button.copy-code-button"))) {
      button.addEventListener("click", () => void navigator.clipboard?.writeText(button.parentElement?.querySelector("code")?.textContent ?? ""));
    }
    el.appendChild(template.content);
  }
  static async renderMarkdown(markdown: string, el: HTMLElement, sourcePath: string, component: Component): Promise<void> {
    await MarkdownRenderer.render(new App(), markdown, el, sourcePath, component);
  }
  /** Stand-in only. */
  static calls: string[] = [];
}

const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  const isBlockStart = (line: string, next = "") => /^(`{3,}|~{3,}|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s|(-{3,}|\*{3,})\s*$)/.test(line) || (line.includes("|") && TABLE_DELIMITER.test(next));
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].startsWith(fence[1])) body.push(lines[i++]);
      i++;
      const lang = fence[2].trim().split(/\s+/)[0];
      const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
      out.push(`<pre${cls}><code${cls}>${escapeHtml(body.join("\n"))}</code><button class="copy-code-button">Copy</button></pre>`);
      continue;
    }
    if (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "")) {
      const rows: string[] = [line];
      i += 2;
      while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") rows.push(lines[i++]);
      out.push(tableToHtml(rows));
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      out.push(`<h${heading[1].length}>${inlineToHtml(heading[2])}</h${heading[1].length}>`);
      i++;
      continue;
    }
    if (/^(-{3,}|\*{3,})\s*$/.test(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (line.startsWith(">")) {
      const quoted: string[] = [];
      while (i < lines.length && lines[i].startsWith(">")) quoted.push(lines[i++].replace(/^>\s?/, ""));
      out.push(`<blockquote>${markdownToHtml(quoted.join("\n"))}</blockquote>`);
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /\d/.test(item.exec(line)![1]);
      const items: string[] = [];
      while (i < lines.length && (item.test(lines[i]) || (/^\s+\S/.test(lines[i]) && items.length > 0))) {
        if (item.test(lines[i])) items.push(lines[i].replace(item, ""));
        else items[items.length - 1] += "\n" + lines[i].trim();
        i++;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(`<${tag}>${items.map((t) => `<li>${inlineToHtml(t)}</li>`).join("")}</${tag}>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i].trim() !== "" && (para.length === 0 || !isBlockStart(lines[i], lines[i + 1]))) para.push(lines[i++]);
    out.push(`<p>${inlineToHtml(para.join("\n"))}</p>`);
  }
  return out.join("");
}

const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** A GFM table (header row, then body rows), cells split on unescaped pipes. */
function tableToHtml(rows: string[]): string {
  const cells = (row: string) =>
    row
      .trim()
      .replace(/^\|/, "")
      .replace(/(?<!\\)\|$/, "")
      .split(/(?<!\\)\|/)
      .map((c) => inlineToHtml(c.trim()));
  const [head, ...body] = rows;
  const header = `<thead><tr>${cells(head).map((c) => `<th>${c}</th>`).join("")}</tr></thead>`;
  return `<table>${header}<tbody>${body.map((r) => `<tr>${cells(r).map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

function inlineToHtml(text: string): string {
  let html = "";
  let i = 0;
  const rest = () => text.slice(i);
  while (i < text.length) {
    const ch = text[i];
    let m: RegExpExecArray | null;
    if (ch === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1])) {
      html += escapeHtml(text[i + 1]);
      i += 2;
    } else if (ch === "`" && (m = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest()))) {
      html += `<code>${escapeHtml(m[2].trim())}</code>`;
      i += m[0].length;
    } else if ((m = /^!\[\[([^\]]+)\]\]/.exec(rest()))) {
      html += `<span class="internal-embed" src="${escapeHtml(m[1])}"></span>`;
      i += m[0].length;
    } else if ((m = /^\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/.exec(rest()))) {
      html += `<a class="internal-link" data-href="${escapeHtml(m[1])}" href="${escapeHtml(m[1])}">${escapeHtml(m[2] ?? m[1])}</a>`;
      i += m[0].length;
    } else if ((m = /^!\[([^\]]*)\]\(([^)\s]+)\)/.exec(rest()))) {
      html += `<img alt="${escapeHtml(m[1])}" src="${escapeHtml(m[2])}">`;
      i += m[0].length;
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest()))) {
      const external = /^[a-z][a-z0-9+.-]*:/i.test(m[2]);
      html += `<a class="${external ? "external-link" : "internal-link"}" href="${escapeHtml(m[2])}">${inlineToHtml(m[1])}</a>`;
      i += m[0].length;
    } else if ((m = /^<(https?:\/\/[^>\s]+)>/.exec(rest()))) {
      html += `<a class="external-link" href="${escapeHtml(m[1])}">${escapeHtml(m[1])}</a>`;
      i += m[0].length;
    } else if ((m = /^<\/?[A-Za-z][^>]*>/.exec(rest()))) {
      html += m[0]; // raw HTML, as the app renders it (then sanitised)
      i += m[0].length;
    } else if ((m = /^https?:\/\/[^\s<]*[^\s<.,;:!?)\]]/.exec(rest())) && !/[\w/]/.test(text[i - 1] ?? " ")) {
      html += `<a class="external-link" href="${escapeHtml(m[0])}">${escapeHtml(m[0])}</a>`;
      i += m[0].length;
    } else if ((m = /^\*\*([^*]+)\*\*/.exec(rest())) || (m = /^__([^_]+)__/.exec(rest()))) {
      html += `<strong>${inlineToHtml(m[1])}</strong>`;
      i += m[0].length;
    } else if ((m = /^\*([^*\s][^*]*)\*/.exec(rest())) || (m = /^_([^_\s][^_]*)_(?!\w)/.exec(rest()))) {
      html += `<em>${inlineToHtml(m[1])}</em>`;
      i += m[0].length;
    } else if ((m = /^==([^=]+)==/.exec(rest()))) {
      html += `<mark>${inlineToHtml(m[1])}</mark>`;
      i += m[0].length;
    } else if ((m = /^#([A-Za-z][\w/-]*)/.exec(rest())) && !/\w/.test(text[i - 1] ?? " ")) {
      html += `<a class="tag" href="#${escapeHtml(m[1])}">#${escapeHtml(m[1])}</a>`;
      i += m[0].length;
    } else if (ch === "&" && (m = /^&(#\d+|#x[0-9a-f]+|[a-z]+);/i.exec(rest()))) {
      html += m[0];
      i += m[0].length;
    } else if (ch === "\n") {
      html += "<br>";
      i++;
    } else {
      html += escapeHtml(ch);
      i++;
    }
  }
  return html;
}

/** Stand-in only: rough shapes for the icons the plugin uses, so a page shows something. */
const ICON_PATHS: Record<string, string> = {
  send: "M4 12 20 4 14 20 11 13Z",
  square: "M6 6h12v12H6Z",
  globe: "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M3 12h18M12 3c3 3 3 15 0 18M12 3c-3 3-3 15 0 18",
  check: "M5 12l5 5 9-10",
  x: "M6 6l12 12M18 6 6 18",
  minus: "M6 12h12",
  loader: "M12 3v4M12 17v4M3 12h4M17 12h4",
  "alert-triangle": "M12 3 22 20H2ZM12 9v5M12 17v1",
  telescope: "M4 14l12-6 2 4-12 6ZM10 16l-3 5M12 15l3 6",
  "x-circle": "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M9 9l6 6M15 9l-6 6",
  copy: "M9 9h11v11H9ZM5 15H4V4h11v1",
  "text-cursor-input": "M13 20h-1a3 3 0 0 1-3-3V7a3 3 0 0 1 3-3h1M5 4h1a3 3 0 0 1 3 3v10a3 3 0 0 1-3 3H5M13 8h7v8h-7",
  "file-text": "M14 3H6v18h12V7ZM14 3v4h4M9 13h6M9 17h6",
  "file-plus": "M14 3H6v18h12V7ZM14 3v4h4M12 11v6M9 14h6",
  "arrow-up": "M12 19V5M5 12l7-7 7 7",
};

/** Like the app: replaces the element's content with the icon (an `svg.svg-icon`). */
export function setIcon(parent: HTMLElement, iconId: string): void {
  parent.empty();
  const svg = parent.createSvg("svg", { cls: ["svg-icon", `lucide-${iconId}`], attr: { "data-icon": iconId, viewBox: "0 0 24 24", width: 16, height: 16 } });
  const shape = ICON_PATHS[iconId];
  if (shape) svg.createSvg("path", { attr: { d: shape, "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" } });
}

export function setTooltip(el: HTMLElement, tooltip: string): void {
  el.setAttribute("aria-label", tooltip);
}

export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string | ArrayBuffer;
  headers?: Record<string, string>;
  throw?: boolean;
}

export interface RequestUrlResponse {
  status: number;
  headers: Record<string, string>;
  arrayBuffer: ArrayBuffer;
  json: unknown;
  text: string;
}

export interface RequestUrlResponsePromise extends Promise<RequestUrlResponse> {
  arrayBuffer: Promise<ArrayBuffer>;
  json: Promise<unknown>;
  text: Promise<string>;
}

/** Stand-in only: what a test's request handler answers. Throwing means "no response at all". */
export interface StandInResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

type RequestHandler = (request: RequestUrlParam) => StandInResponse | Promise<StandInResponse>;

let requestHandler: RequestHandler | null = null;

/** Stand-in only: decides how `requestUrl` answers. Pass null to make every request fail. */
export function setRequestUrlHandler(handler: RequestHandler | null): void {
  requestHandler = handler;
}

export function requestUrl(request: RequestUrlParam | string): RequestUrlResponsePromise {
  const param: RequestUrlParam = typeof request === "string" ? { url: request } : request;
  const response = (async (): Promise<RequestUrlResponse> => {
    if (!requestHandler) throw new Error("net::ERR_INTERNET_DISCONNECTED");
    const answer = await requestHandler(param);
    const body = answer.body ?? "";
    const bytes = new TextEncoder().encode(body);
    const result: RequestUrlResponse = {
      status: answer.status,
      // Like the app, header names come back as the server sent them.
      headers: { ...(answer.headers ?? {}) },
      arrayBuffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      get json() {
        return JSON.parse(body) as unknown;
      },
      text: body,
    };
    if (param.throw !== false && answer.status >= 400) {
      throw Object.assign(new Error(`Request failed, status ${answer.status}`), { status: answer.status, headers: result.headers });
    }
    return result;
  })();
  // Lazy, so a failed request is not also reported as three unhandled rejections.
  return Object.defineProperties(response, {
    arrayBuffer: { get: () => response.then((r) => r.arrayBuffer) },
    json: { get: () => response.then((r) => r.json) },
    text: { get: () => response.then((r) => r.text) },
  }) as RequestUrlResponsePromise;
}

export function normalizePath(path: string): string {
  let p = path.replace(/\\/g, "/").replace(/\u00a0|\u202f/g, " ");
  p = p.replace(/\/+/g, "/").replace(/^\/|\/$/g, "");
  return p === "" ? "/" : p.normalize("NFC");
}

export interface Debouncer<T extends unknown[], V> {
  (...args: [...T]): this;
  cancel(): this;
  run(): V | void;
}

export function debounce<T extends unknown[], V>(cb: (...args: [...T]) => V, timeout = 0, resetTimer = false): Debouncer<T, V> {
  let timer: number | null = null;
  let lastArgs: T | null = null;
  const fire = (): V | void => {
    timer = null;
    if (!lastArgs) return;
    const args = lastArgs;
    lastArgs = null;
    return cb(...args);
  };
  const debounced = ((...args: T) => {
    lastArgs = args;
    if (timer !== null && resetTimer) {
      window.clearTimeout(timer);
      timer = null;
    }
    timer ??= window.setTimeout(fire, timeout);
    return debounced;
  }) as Debouncer<T, V>;
  debounced.cancel = () => {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    lastArgs = null;
    return debounced;
  };
  debounced.run = () => {
    if (timer !== null) window.clearTimeout(timer);
    return fire();
  };
  return debounced;
}

export const Platform = {
  isDesktop: true,
  isMobile: false,
  isDesktopApp: true,
  isMobileApp: false,
  isIosApp: false,
  isAndroidApp: false,
  isPhone: false,
  isTablet: false,
  isMacOS: false,
  isWin: false,
  isLinux: true,
  isSafari: false,
  resourcePathPrefix: "app://local/",
};

export const apiVersion = "1.13.1";

/** The version the stand-in app is (see SettingTab.open): `apiVersion` unless a test opened a tab as another. */
let appVersion = apiVersion;

/** Whether the app is at least `version`, as the real `requireApiVersion` answers. */
export function requireApiVersion(version: string): boolean {
  return compareVersions(appVersion, version) >= 0;
}

/** An API the app gained at `since`: calling it in an older app fails, as a missing method would. */
function onlySince(since: string, name: string): void {
  if (!requireApiVersion(since)) throw new TypeError(`${name} is not a function (Obsidian ${appVersion}; it came in ${since})`);
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export class Keymap {
  static isModEvent(evt?: UserEvent | null): PaneType | boolean {
    return !!evt && "ctrlKey" in evt && (evt.ctrlKey || evt.metaKey) ? "tab" : false;
  }
}

export type UserEvent = MouseEvent | KeyboardEvent | TouchEvent | PointerEvent;
