// Words shown to the player: phases, bids and every error code of
// docs/client-protocol.md (gateway, lobby and rules codes) in plain Chinese.
// A game's own words (its name, its phases' names) come from the server
// (``rules`` in game_started and view, ``game_title`` of a coin server).
export const STATE_NAMES = { idle: "空闲", waiting: "等待", started: "已开始" };

export const PHASES = {
  dealing: "发牌中", declaring: "叫主", burying: "扣底", play: "出牌", finished: "已结束",
};

export const ERRORS = {
  // gateway
  bad_frame: "消息格式错误",
  frame_too_large: "消息太大",
  unknown_command: "未知的命令",
  bad_request: "请求有误",
  rate_limited: "操作太快了，请稍后再试",
  unauthenticated: "请先登录",
  bad_token: "登录已失效，请重新登录",
  login_disabled: "服务器未开放按名字登录（非开发模式）",
  no_game: "你没有进行中的牌局",
  unavailable: "服务暂时不可用，请重试",
  internal: "服务器出错了，请重试",
  disconnected: "连接已断开，正在重连…",
  too_many_sessions: "登录太频繁，请稍后再试",
  no_record: "没有这局的记录",
  not_your_game: "只能回放自己打过的牌局",
  bad_link: "回放链接无效或已过期",
  revoked: "分享者已撤销这个回放链接",
  too_many_shares: "分享的回放太多了，请先撤销一些",
  not_your_share: "这不是你的分享",
  no_share: "没有这个分享",
  no_such_step: "没有这一步",
  bad_record: "这局的记录无法回放",
  // lobby
  room_started: "该房间游戏已开始，不能进入",
  seat_taken: "这个座位已经有人了",
  not_enough_coins: "金币不足，不满足该服务器的坐下条件",
  already_seated: "你已经坐在别的房间了",
  no_such_room: "没有这个房间",
  no_such_seat: "没有这个座位",
  no_such_server: "没有这个服务器",
  no_such_game: "没有这个游戏",
  not_seated: "你还没有坐下",
  no_table_instance: "暂时没有可用的牌桌，请稍后再点开始",
  busy: "服务器繁忙，请重试",
  ledger_unavailable: "账户服务暂时不可用",
  invalid_argument: "请求有误",
  // rules
  not_your_turn: "还没轮到你",
  wrong_phase: "现在不能这样做",
  cards_not_in_hand: "你手里没有这些牌",
  invalid_combination: "不是合法的牌型",
  does_not_beat: "管不上上家的牌",
  must_follow_suit: "必须跟出相同花色",
  must_follow_shape: "必须跟出相同牌型",
  cannot_pass: "现在不能不出",
  must_beat_points: "有分必须要管",
  cannot_dump_points: "不能主动贴分",
  declare_too_weak: "叫的主不够大",
  not_eligible: "你不能这样做",
  unknown_action: "未知的操作",
  malformed_cards: "牌的写法不对",
  malformed_action: "操作格式不对",
  game_over: "牌局已经结束",
  bad_deal: "发牌有误",
  bad_options: "规则选项有误",
  not_dealt_yet: "牌还没发到",
  wrong_count: "张数不对（扣底要扣够底牌的张数）",
  // spectators, quick start, quick chat
  spectators_cannot_act: "旁观中，不能操作",
  spectators_cannot_chat: "旁观者不能发言",
  spectators_forbidden: "这个房间不允许旁观",
  room_not_started: "这桌还没开始，没有可旁观的牌局",
  seated_elsewhere: "你已经坐在别的房间，不能旁观其他牌局",
  no_free_room: "暂时没有空位，请稍后再试",
  no_such_game_type: "没有这个游戏",
  // relief coins (救济金; not_eligible of a claim: js/relief.js)
  relief_spent: "今天的救济金已经领完了，明天再来吧",
  relief_off: "暂不提供救济金",
  claim_id_conflict: "这次领取与之前的不一致，请再点一次",
  // private rooms (好友房)
  no_such_code: "没有这个房间号",
  too_many_attempts: "房间号试得太多了，请一分钟后再试",
  too_many_rooms: "你开的好友房已达上限",
  not_owner: "只有房主可以请人离开",
  chat_rate_limited: "说话太快了，请稍等",
  no_such_phrase: "只能发送快捷短语和表情",
};

/** The words for an error reply ({error, message}). */
export function errorText(reply) {
  const code = reply && reply.error;
  const words = ERRORS[code];
  if (words) return words;
  return `${code || "error"}: ${(reply && reply.message) || "操作被拒绝"}`;
}

/** The words for ``phase`` of game ``g`` (the game's own, else the common ones). */
export function phaseText(g, phase) {
  const own = (g && g.rules && g.rules.phase_labels) || {};
  return own[phase] || PHASES[phase] || phase || "";
}

/** The words for action ``type`` of game ``g`` where the game names it
 * (``rules.action_labels``, e.g. 斗地主's 叫地主), else "". */
export function actionText(g, type) {
  const own = (g && g.rules && g.rules.action_labels) || {};
  return own[type] || "";
}

export const REASONS = { normal: "", escape: "有玩家逃跑，牌局结束", redeal: "无人叫主，重新发牌",
  void: "本局已被管理员作废，不计输赢" };
