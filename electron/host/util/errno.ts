/** Whether `error` is a system error with this code (`ENOENT`, `EEXIST`, ...). */
export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
