// Resetting private-data mode for a client: a warning first, since the client's conversation
// may still hold what it read.
import type { ListPage, TaintView } from "../../../../shared/api/api-views.js";
import { useMutation } from "../../api/hooks.js";
import { Dialog } from "../../components/dialog.js";
import { DialogFooter } from "../../components/dialog-footer.js";
import { ErrorState } from "../../components/states.js";

export function ResetTaintDialog(props: {
  record: TaintView;
  onClose: () => void;
  onDone: (next: ListPage<TaintView>) => void;
}) {
  const reset = useMutation("taint.reset");
  const { record } = props;
  return (
    <Dialog
      alert
      title={`Reset private-data mode for ${record.client}?`}
      onClose={props.onClose}
      actions={
        <DialogFooter
          onCancel={props.onClose}
          tone="danger"
          confirmLabel="Reset private-data mode"
          busyLabel="Resetting…"
          busy={reset.busy}
          onConfirm={() => {
            void reset.run({ client: record.client }).then((r) => {
              if (r.ok) props.onDone(r.value);
            });
          }}
        />
      }
    >
      <div className="callout callout-warn">
        <div className="callout-text">
          <strong>{record.client}&rsquo;s conversation may still hold the private data.</strong>
          <p>
            It read data from <code>{record.tool}</code> on {record.server}. After a reset, the
            model in that conversation can call every allowed tool again, and could pass that data
            on to them.
          </p>
        </div>
      </div>
      <p>
        To be safe, start a new conversation in {record.client} first, then reset. Private-data mode
        turns on again the next time a private tool is called.
      </p>
      {reset.error ? <ErrorState error={reset.error} compact /> : null}
    </Dialog>
  );
}
