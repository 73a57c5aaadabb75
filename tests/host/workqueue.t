#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module queues its works on one workqueue, tlbp_wq (adaptive_x86.c):
# from 6.17 schedule_delayed_work() queues on system_percpu_wq, apart
# from system_wq, and a work queued on both may run twice at once (sid's
# 7.2 showed it as a double tracepoint unregistration).  So no
# schedule_*work() in src/, and every queue_*work() or mod_*work() names
# tlbp_wq.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
echo "1..2"

# Code, not comments (which may name what is avoided).
code() { grep -v -E '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)'; }
found=$(git grep -n -E '\bschedule_(delayed_)?work(_on)?\(' -- 'src/*.[ch]' | code)
if [ -z "$found" ]; then
	echo "ok 1 - no schedule_*work() in src/"
else
	echo "not ok 1 - no schedule_*work() in src/"
	echo "$found" | sed 's/^/# /'
fi
calls=$(git grep -n -E '\b(queue_(delayed_)?work(_on)?|mod_delayed_work(_on)?)\(' -- 'src/*.[ch]' | code)
other=$(echo "$calls" | grep -v -E '(queue_(delayed_)?work|mod_delayed_work)\((tlbp_wq|[^,]*, *tlbp_wq),')
if [ -n "$calls" ] && [ -z "$other" ]; then
	echo "ok 2 - all $(echo "$calls" | wc -l) queueings in src/ go to tlbp_wq"
else
	echo "not ok 2 - all queueings in src/ go to tlbp_wq"
	echo "${other:-none found}" | sed 's/^/# /'
fi
