// A stand-in for the `electron` module, so the real bundled main process (.vite/build/main.cjs)
// runs under plain Node in the tests: Electron's binary cannot be downloaded or started on our
// CI machines. It does what the main process asks of Electron as far as the tests need, and
// writes each thing it was asked to do as one JSON line to ELECTRON_STAND_IN_LOG. The test
// drives it with JSON lines on stdin: quit, click a tray menu item or the last notification,
// invoke an IPC channel.
//
// What it follows of Electron, because the main process relies on it: app.quit() emits
// before-quit (cancellable), closes every window (a window's cancelled close cancels the quit),
// emits will-quit and quit, then exits; the single-instance lock holds across processes, and a
// second instance's request makes the first emit second-instance; ipcMain.handle refuses a
// second handler for one channel.
const { EventEmitter } = require("node:events");
const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const { requestLock } = require("./single-instance.cjs");

const LOG = process.env.ELECTRON_STAND_IN_LOG;
function record(entry) {
  if (LOG) fs.appendFileSync(LOG, JSON.stringify(entry) + "\n");
}

/** An event the listener may cancel, like Electron's. */
function cancellable() {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
  };
}

// Packaged: the test lays the app out as Forge would (resources/app + extra resources) and
// says so; otherwise the app is the folder holding package.json, as `electron .` has it.
const packaged = process.env.ELECTRON_STAND_IN_PACKAGED === "1";
if (process.env.ELECTRON_STAND_IN_RESOURCES) {
  process.resourcesPath = process.env.ELECTRON_STAND_IN_RESOURCES;
}
function findAppPath() {
  let dir = path.dirname(path.resolve(process.argv[1] ?? __dirname));
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("electron stand-in: no package.json above the main script");
    dir = parent;
  }
  return dir;
}
const appPath = findAppPath();
const appPackage = JSON.parse(fs.readFileSync(path.join(appPath, "package.json"), "utf8"));
const appName = appPackage.productName ?? appPackage.name;

class App extends EventEmitter {
  constructor() {
    super();
    this.isPackaged = packaged;
    this.ready = false;
    this.quitting = false;
    this.login = { openAtLogin: false };
    this.readyPromise = new Promise((resolve) => {
      // Electron is ready once the main script has run to its end.
      setImmediate(() => {
        this.ready = true;
        record({ ev: "ready" });
        this.emit("ready");
        resolve();
      });
    });
  }
  whenReady() {
    return this.readyPromise;
  }
  isReady() {
    return this.ready;
  }
  getAppPath() {
    return appPath;
  }
  getVersion() {
    return appPackage.version;
  }
  getName() {
    return appName;
  }
  getPath(name) {
    const home = process.env.HOME ?? "/nonexistent";
    const appData = process.env.XDG_CONFIG_HOME ?? path.join(home, ".config");
    const paths = {
      home,
      appData,
      userData: path.join(appData, appName),
      temp: process.env.TMPDIR ?? "/tmp",
      exe: process.execPath,
      logs: path.join(appData, appName, "logs"),
    };
    if (!(name in paths)) throw new Error(`electron stand-in: no path named ${name}`);
    return paths[name];
  }
  requestSingleInstanceLock(additionalData) {
    const got = requestLock(this.getPath("userData"), additionalData, (message) => {
      record({ ev: "second-instance", argv: message.argv });
      this.emit("second-instance", cancellable(), message.argv, message.cwd, message.data);
    });
    record({ ev: "single-instance-lock", got });
    return got;
  }
  getLoginItemSettings() {
    return { openAtLogin: this.login.openAtLogin, wasOpenedAtLogin: false };
  }
  setLoginItemSettings(settings) {
    record({ ev: "login-item", settings });
    this.login = { ...this.login, ...settings };
  }
  quit() {
    record({ ev: "quit-called" });
    setImmediate(() => this.runQuit());
  }
  runQuit() {
    if (this.quitting) return;
    const before = cancellable();
    record({ ev: "before-quit" });
    this.emit("before-quit", before);
    if (before.defaultPrevented) return;
    for (const window of [...windows]) {
      if (!window.close()) {
        record({ ev: "quit-cancelled", by: "window close" });
        return;
      }
    }
    const will = cancellable();
    record({ ev: "will-quit" });
    this.emit("will-quit", will);
    if (will.defaultPrevented) return;
    this.quitting = true;
    this.emit("quit", cancellable(), 0);
    this.exit(0);
  }
  exit(code = 0) {
    record({ ev: "exit", code });
    process.exit(code);
  }
}
const app = new App();

class WebContents extends EventEmitter {
  constructor(id) {
    super();
    this.id = id;
    this.destroyed = false;
  }
  send(channel, ...args) {
    record({ ev: "webcontents-send", channel, args });
  }
  setWindowOpenHandler() {}
  executeJavaScript(code) {
    record({ ev: "execute-javascript", code });
    return Promise.resolve(undefined);
  }
  isDestroyed() {
    return this.destroyed;
  }
}

const windows = new Set();
let nextId = 1;
class BrowserWindow extends EventEmitter {
  constructor(options = {}) {
    super();
    this.id = nextId++;
    this.webContents = new WebContents(this.id);
    this.visible = false;
    windows.add(this);
    record({ ev: "window-new", id: this.id, webPreferences: options.webPreferences ?? {} });
  }
  static getAllWindows() {
    return [...windows];
  }
  static fromWebContents(webContents) {
    return [...windows].find((w) => w.webContents === webContents) ?? null;
  }
  loadFile(file) {
    record({ ev: "window-load-file", id: this.id, file: path.resolve(file) });
    // Electron shows nothing for a missing file; the test checks the path, so no event here.
    if (fs.existsSync(file)) setImmediate(() => this.emit("ready-to-show"));
    return Promise.resolve();
  }
  loadURL(url) {
    record({ ev: "window-load-url", id: this.id, url });
    return Promise.resolve();
  }
  show() {
    this.visible = true;
    record({ ev: "window-show", id: this.id });
  }
  hide() {
    this.visible = false;
    record({ ev: "window-hide", id: this.id });
  }
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isVisible() {
    return this.visible;
  }
  /** Returns false when a listener kept the window open. */
  close() {
    const event = cancellable();
    this.emit("close", event);
    if (event.defaultPrevented) return false;
    this.destroy();
    return true;
  }
  destroy() {
    windows.delete(this);
    this.webContents.destroyed = true;
    this.webContents.emit("destroyed");
    record({ ev: "window-closed", id: this.id });
    this.emit("closed");
  }
}

class MenuItem {
  constructor(options) {
    Object.assign(this, { type: "normal", enabled: true, checked: false }, options);
  }
}
class Menu {
  constructor(items = []) {
    this.items = items;
  }
  static buildFromTemplate(template) {
    return new Menu(template.map((options) => new MenuItem(options)));
  }
}

class Tray extends EventEmitter {
  /** The tray the test's clicks go to: the one made last and not destroyed. */
  static current = null;
  constructor(image) {
    super();
    this.menu = null;
    Tray.current = this;
    record({ ev: "tray-new", image: describeImage(image) });
  }
  setImage(image) {
    record({ ev: "tray-image", image: describeImage(image) });
  }
  setToolTip(text) {
    record({ ev: "tray-tooltip", text });
  }
  setContextMenu(menu) {
    this.menu = menu;
    const items = menu.items.map(({ type, label, enabled, checked }) => ({
      type,
      label,
      enabled,
      checked,
    }));
    record({ ev: "tray-menu", items });
  }
  destroy() {
    if (Tray.current === this) Tray.current = null;
    record({ ev: "tray-destroy" });
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const nativeImage = {
  createFromBuffer(buffer) {
    return { buffer, isEmpty: () => buffer.length === 0 };
  },
};
function describeImage(image) {
  return { png: image.buffer.subarray(0, 8).equals(PNG_SIGNATURE), bytes: image.buffer.length };
}

class IpcMain extends EventEmitter {
  constructor() {
    super();
    this.handlers = new Map();
  }
  handle(channel, listener) {
    if (this.handlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    }
    this.handlers.set(channel, listener);
    record({ ev: "ipc-handle", channel });
  }
  removeHandler(channel) {
    this.handlers.delete(channel);
  }
}
const ipcMain = new IpcMain();

class Notification extends EventEmitter {
  /** Every notification shown, so the test can click one. */
  static shown = [];
  constructor(options = {}) {
    super();
    this.options = options;
  }
  static isSupported() {
    return true;
  }
  show() {
    Notification.shown.push(this);
    record({ ev: "notification", title: this.options.title, body: this.options.body });
  }
  close() {}
}

// Reversible, and not the plain text: enough to see the main process store and read it back.
const KEYCHAIN_MARK = "stand-in-keychain:";
const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => "gnome_libsecret",
  encryptString: (plain) =>
    Buffer.from(KEYCHAIN_MARK + Buffer.from(plain, "utf8").toString("base64"), "utf8"),
  decryptString: (sealed) => {
    const text = sealed.toString("utf8");
    if (!text.startsWith(KEYCHAIN_MARK)) throw new Error("Error while decrypting the ciphertext");
    return Buffer.from(text.slice(KEYCHAIN_MARK.length), "base64").toString("utf8");
  },
};

const shell = {
  openExternal(url) {
    record({ ev: "open-external", url });
    return Promise.resolve();
  },
};

const dialog = {
  showErrorBox(title, content) {
    record({ ev: "error-box", title, content });
  },
  showOpenDialog() {
    return Promise.resolve({ canceled: true, filePaths: [] });
  },
  // The user saves under the offered name in their home folder.
  showSaveDialog(...args) {
    const options = args.at(-1) ?? {};
    const filePath = path.join(app.getPath("home"), path.basename(options.defaultPath ?? "saved"));
    record({ ev: "save-dialog", defaultPath: options.defaultPath, filePath });
    return Promise.resolve({ canceled: false, filePath });
  },
  showMessageBox() {
    return Promise.resolve({ response: 0, checkboxChecked: false });
  },
};

// The test's side: one JSON command per stdin line.
async function command(line) {
  const cmd = JSON.parse(line);
  if (cmd.op === "quit") return app.quit();
  if (cmd.op === "click-tray-item") {
    const item = Tray.current?.menu?.items.find((i) => i.label === cmd.label);
    if (!item?.click) return record({ ev: "command-failed", cmd, why: "no such tray item" });
    if (item.type === "checkbox") item.checked = !item.checked;
    return item.click(item, null, {});
  }
  if (cmd.op === "click-notification") {
    const shown = Notification.shown.at(-1);
    if (!shown) return record({ ev: "command-failed", cmd, why: "no notification shown" });
    return shown.emit("click", {});
  }
  if (cmd.op === "invoke") {
    const handler = ipcMain.handlers.get(cmd.channel);
    const window = [...windows][0];
    // From our window, or from a frame that is not ours.
    const sender = cmd.untrusted || !window ? new WebContents(-1) : window.webContents;
    const result = handler
      ? await handler({ sender, senderFrame: { url: "file:///index.html" } }, cmd.params)
      : { noHandler: true };
    return record({ ev: "invoke-result", id: cmd.id, result });
  }
  record({ ev: "command-failed", cmd, why: "unknown op" });
}
if (process.env.ELECTRON_STAND_IN_COMMANDS === "stdin") {
  readline.createInterface({ input: process.stdin }).on("line", (line) => {
    command(line).catch((error) => record({ ev: "command-failed", line, why: String(error) }));
  });
}

module.exports = {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  MenuItem,
  nativeImage,
  Notification,
  safeStorage,
  shell,
  Tray,
};
