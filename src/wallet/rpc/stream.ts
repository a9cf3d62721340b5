/**
 * The live event stream of a service's open wallet (issue 20; tsmonero's extension): GET /events
 * (the drop-in wallet) and GET /wallets/NAME/events (a hub wallet) answer Server-Sent Events, one
 * per wallet event: `id:` the event id, `event:` its kind, `data:` the event JSON (as the webhook
 * body). A `Last-Event-ID` header (or `?last_event_id=`) first replays the outbox's events after that
 * one (an id the outbox does not hold: all of it). A comment line every 15 s keeps proxies from
 * closing an idle stream.
 */
import type { HttpAnswer, HttpRequest } from "../../rpc/http.js";
import { walletEvents } from "../events/events.js";
import type { StoredEvent } from "../events/outbox.js";
import type { WalletService } from "../service/service.js";

const KEEPALIVE_MS = 15_000;

export function sseFrame(s: StoredEvent): string {
  return `id: ${s.event.id}\nevent: ${s.event.kind}\ndata: ${JSON.stringify(s.event)}\n\n`;
}

export function eventStream(svc: WalletService, log?: (m: string) => void): (req: HttpRequest) => HttpAnswer {
  return (req) => {
    const q = req.url.indexOf("?");
    const fromQuery = q < 0 ? null : new URLSearchParams(req.url.slice(q + 1)).get("last_event_id");
    const last = req.headers.get("last-event-id") ?? fromQuery ?? undefined;
    return {
      status: 200,
      type: "text/event-stream",
      body: "",
      stream: (sink) => {
        sink.write(": tsmonero wallet events\nretry: 2000\n\n");
        const stop = walletEvents(svc, log ? { log } : {}).stream((s) => {
          sink.write(sseFrame(s));
        }, last);
        const keep = setInterval(() => sink.write(": keep-alive\n\n"), KEEPALIVE_MS);
        keep.unref();
        sink.onClose(() => {
          clearInterval(keep);
          stop();
        });
      },
    };
  };
}
