// What a slot-opening container runs (container-spec.ts, `openSlot`): as the sandbox's own user,
// it gives every file and folder of that user under the slot back to the host (folders 0777,
// files 0666), so the host can walk, keep and remove what a run left there. A run can shut the
// host out of what it makes (a folder of mode 0700, as tempfile.mkdtemp makes, or 0000 on
// purpose), and where the host is neither root nor that user (an app run by an ordinary user
// with rootful Docker; rootless Podman, where the sandbox's user is a subordinate uid) nothing
// but that user can open it again. The runner does this itself after the code, but never when
// the run is killed. It walks by changing folder, a level at a time, so no path grows with the
// depth and only one folder is open at once; a symlink is never followed (each folder is checked
// to be the one lstat saw), and what is not the sandbox user's is left as it is.
/** The script, opening what is under `slotPath` (the container's mount of the slot). */
export function openSlotScript(slotPath: string): string {
  return `
import os, stat
me = os.getuid()
os.chdir(${JSON.stringify(slotPath)})
levels = [iter(os.listdir(b"."))]
while levels:
    name = next(levels[-1], None)
    if name is None:
        levels.pop()
        if levels:
            os.chdir(b"..")
        continue
    try:
        info = os.lstat(name)
        folder = stat.S_ISDIR(info.st_mode)
        if info.st_uid == me and (folder or stat.S_ISREG(info.st_mode)):
            os.chmod(name, 0o777 if folder else 0o666)
        if not folder:
            continue
        os.chdir(name)
    except OSError:
        continue
    here = os.stat(b".")
    if (here.st_dev, here.st_ino) != (info.st_dev, info.st_ino):
        raise SystemExit("a folder changed while the slot was opened")
    try:
        levels.append(iter(os.listdir(b".")))
    except OSError:
        os.chdir(b"..")
`;
}
