#!/bin/sh
# EpilogSlurmctld: tell Headroom the job departed, so its slot is freed. Runs once per job on the
# controller (not on every node) with SLURM_JOB_ID set and almost no other environment (no PATH),
# hence the explicit paths. The helper retries for departure_retry_seconds and the event id makes
# a re-run a replay; keep PrologEpilogTimeout above that. A non-zero status is only logged by
# slurmctld: the job is already over.
PATH=/usr/local/bin:/usr/bin:/bin
export PATH
here=$(dirname "$0")
exec "${HEADROOM_SLURM_HELPER:-$here/headroom_slurm.py}" \
  --config "${HEADROOM_SLURM_CONF:-/etc/slurm/headroom.conf}" depart \
  2>>"${HEADROOM_SLURM_LOG:-/var/log/slurm/headroom.log}"
