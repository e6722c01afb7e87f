// What the 旁观, 快速开始 and chat controls do (app.js adds these to its
// actions): the commands watch, unwatch, quick_start and chat of
// docs/client-protocol.md, and the page's state around them.

import { S, toast, saveRoom, render, call } from "./store.js";
import { errorText } from "./text.js";
import { gameFromView } from "./state.js";
import { tableName } from "./table_view.js";

/** The actions; ``openServer(server)`` shows a server's rooms (app.js). */
export function socialActions(openServer) {
  return {
    /** 旁观 a started room: its public view, its events, the spectator count. */
    async watch(roomId) {
      const r = await call("watch", { room: roomId });
      if (!r.ok) { toast(errorText(r)); return; }
      if (r.seated) { S.room = r.room; saveRoom(); }
      else S.watch = { room: r.room, count: r.spectators || 0 };
      S.spectators = r.spectators || 0;
      S.result = null;
      S.bubbles = {};
      S.log = [];
      S.game = r.view && r.view.game_id ? gameFromView(r.view) : null;
      S.screen = "table";
      render();
    },
    /** Stop watching: back to the room list. */
    async unwatch() {
      const server = S.watch ? S.watch.room.server : S.server;
      await call("unwatch");
      S.watch = null;
      S.game = null;
      S.result = null;
      S.bubbles = {};
      S.chatOpen = false;
      if (server) await openServer(server);
      else { S.screen = "servers"; render(); }
    },
    /** 快速开始 in ``game``: seated by the lobby at the best room it can afford. */
    async quickStart(game) {
      const r = await call("quick_start", { game });
      if (!r.ok) { toast(errorText(r)); return; }
      S.watch = null;
      S.spectators = 0;
      S.room = r.room;
      S.server = r.room.server;
      S.game = null;
      S.result = null;
      S.bubbles = {};
      S.log = [];
      saveRoom();
      await call("watch_server", { server: r.room.server });
      S.screen = "table";
      const srv = S.servers.find((x) => x.server === r.room.server);
      const mine = (r.room.seats || []).find((x) => x.player === (S.me && S.me.player));
      toast(`已为你找到座位：${srv ? `${srv.name} · ` : ""}${tableName(r.room.room)}` +
        (mine ? `，${mine.seat + 1} 号座` : ""), false);
      render();
    },
    toggleChat() { S.chatOpen = !S.chatOpen; render(); },
    /** Send a quick chat phrase or emote (``say``: its id). */
    async chat(say) {
      S.chatOpen = false;
      render();
      const r = await call("chat", { say });
      if (!r.ok) toast(errorText(r));
    },
  };
}
