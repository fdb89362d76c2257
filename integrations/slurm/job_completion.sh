#!/bin/sh
# Tells Headroom a job has left, so its slot is freed (every node's slot, for a multi-node
# job: the helper reads the members from the AdminComment). Meant for JobCompType=jobcomp/script
# (JobCompLoc=this file): slurmctld runs it once for every job that ends, including one
# cancelled before it started. EpilogSlurmctld=this file also works but misses those (it runs
# only for jobs that were allocated; Slurm 22.05, checked), so a placed job cancelled while
# pending would keep its Headroom slot. Both give the script a bare environment, hence the
# explicit PATH and paths. The helper retries for departure_retry_seconds and the event id
# makes a re-run a replay. A non-zero status is only logged by slurmctld: the job is over.
PATH=/usr/local/bin:/usr/bin:/bin
export PATH
here=$(dirname "$0")
exec "${HEADROOM_SLURM_HELPER:-$here/headroom_slurm.py}" \
  --config "${HEADROOM_SLURM_CONF:-/etc/slurm/headroom.conf}" depart \
  2>>"${HEADROOM_SLURM_LOG:-/var/log/slurm/headroom.log}"
