set -u
out=$(bash backup.sh 2>/tmp/oc-bench-err); code=$?
[ "$code" -eq 1 ] || { echo "exit code $code"; exit 1; }
grep -qi usage /tmp/oc-bench-err || { echo "no usage line on stderr"; exit 1; }
mkdir -p data && echo x > data/f
bash backup.sh data >/dev/null || { echo "backup failed"; exit 1; }
ls backup | grep -q '^data-' || { echo "no backup made"; exit 1; }
echo ok
