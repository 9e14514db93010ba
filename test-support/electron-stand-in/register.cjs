// `node --require register.cjs main.cjs`: every `require("electron")` of the main process
// gets the stand-in beside this file, as Electron's own module would be there at run time.
const Module = require("node:module");
const path = require("node:path");

const standIn = path.join(__dirname, "electron.cjs");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "electron" ? standIn : resolve.call(this, request, ...rest);
};
