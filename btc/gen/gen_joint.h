/* Private to gen/: workload.c's tables of a joint plan (gen_joint.c). */
#ifndef BTC_GEN_JOINT_H
#define BTC_GEN_JOINT_H

#include "gen/gen.h"

/* The joint candidates' tables (joint_K[] and joint[], with each
 * stream's co-located CPU chunks' core sets joint_K_S_cores[];
 * btc_gen_joint_chunk_cores), before main; ctxs[a] app a's context. */
void btc_gen_joint_tables(struct btc_out *o, const struct btc_gen_ctx *ctxs,
			  const struct btc_joint_plan *j);
/* The entries of the streams[] table, stream by stream (candidate 0's
 * schedule, the app's solo-best one). */
void btc_gen_joint_streams(struct btc_out *o, const struct btc_gen_ctx *ctxs,
			   const struct btc_joint_plan *j);

#endif
