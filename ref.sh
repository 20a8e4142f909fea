#!/bin/bash
#SBATCH --job-name=ref-x
#SBATCH --output="/tmp/a b/ref/%x_%A_%a.out"
#SBATCH --time=8
#SBATCH --mem=50M

# ref.sh OFFSET: array task a runs tasks OFFSET + a*4 ... of the sweep.
cd "/tmp/a b"
for ((k = 0; k < 4; k++)); do
	i=$(($1 + SLURM_ARRAY_TASK_ID * 4 + k))
	[ $i -lt 100 ] || break
	bash "/tmp/a b/train.sh" "$(sed -n "$((i / 10 + 1))p" lrs.txt)" $((i % 10)) | awk -F= '/loss=/ { print "{\"loss\": " $2 "}" }' >"/tmp/a b/ref/task-$i.json"
done
