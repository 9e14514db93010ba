import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from "electron";
import { trayIconPng } from "./tray-icons.js";
import {
  trayMenu,
  trayState,
  statusLine,
  type TrayAction,
  type TraySnapshot,
} from "./tray-state.js";

/** The tray icon and menu, redrawn from a snapshot whenever the host's state changes. */
export class AppTray {
  private readonly tray: Tray;

  constructor(private readonly onAction: (action: TrayAction) => void) {
    this.tray = new Tray(nativeImage.createFromBuffer(trayIconPng("attention")));
    this.tray.on("click", () => onAction("open"));
  }

  update(snapshot: TraySnapshot): void {
    const state = trayState(snapshot);
    this.tray.setImage(nativeImage.createFromBuffer(trayIconPng(state)));
    this.tray.setToolTip(`Code Mode: ${statusLine(snapshot)}`);
    const template: MenuItemConstructorOptions[] = trayMenu(snapshot).map((item) => {
      switch (item.kind) {
        case "label":
          return { label: item.label, enabled: false };
        case "separator":
          return { type: "separator" };
        case "action":
          return { label: item.label, click: () => this.onAction(item.action) };
        case "checkbox":
          return {
            label: item.label,
            type: "checkbox",
            checked: item.checked,
            click: () => this.onAction(item.action),
          };
      }
    });
    this.tray.setContextMenu(Menu.buildFromTemplate(template));
  }

  destroy(): void {
    this.tray.destroy();
  }
}
