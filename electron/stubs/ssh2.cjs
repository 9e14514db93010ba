// Stands in for the `ssh2` package in the app bundle. docker-modem loads it at start-up for
// ssh:// Docker hosts, which Code Mode does not support (it talks to local sockets and
// pipes); shipping the real one would drag native add-ons into the app.
class Client {
  constructor() {
    throw new Error("Code Mode does not support ssh:// Docker hosts; use a local socket or tcp://");
  }
}
module.exports = { Client };
