/* The request from the command line to the driver (driver/request.h). */
#include "driver/request.h"

#include <string.h>

void btc_request_init(struct btc_request *o)
{
	memset(o, 0, sizeof(*o));
	btc_plan_options_init(&o->plan);
	btc_tune_options_init(&o->tune);
	o->final_tasks = 64;
	o->profile_max_reps = 30;
	o->playoff = true;
	o->bound_round = true;
	o->io_round = true;
}
