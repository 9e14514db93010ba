import type { ApiError, ApiErrorCode } from "./api-contract.js";
import type { FieldError } from "./api-views.js";

/** A handler's way to answer with an error the UI shows as is (on a field, when it names one). */
export class ApiFailure extends Error {
  override name = "ApiFailure";
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
  }

  toApiError(): ApiError {
    return {
      code: this.code,
      message: this.message,
      ...(this.fields ? { fields: this.fields } : {}),
    };
  }
}
