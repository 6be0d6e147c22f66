#!/bin/sh
# examples/nginx/prune.sh ROOT DAYS: prune the remote cache that nginx
# serves from ROOT (ac/, d/, cas/: docs/remote-cache.md) by age, never
# deleting a record a release needs later. Run it from cron on the server,
# e.g. daily: `prune.sh /srv/ripple-cache 30`.
#
#   d/   (pull requests' and branches' domains, their entries and blobs):
#        files older than DAYS go;
#   ac/  (the trusted domain): entries older than DAYS go, except those
#        whose record (inline in the entry, or a CAS blob it names) was
#        written for a tag (provenance.tag set, or ref refs/tags/...) or at
#        a commit a tag's records name (main's CI at the release commit):
#        `ripple release TAG` and `ripple fetch` of a release need those
#        months later (a release's version group spans nodes its own run
#        reused);
#   cas/ blobs older than DAYS go unless an AC entry that stays names them
#        (a young entry may name an old blob: a PUT of a blob the server
#        holds is skipped, so its date is its first upload's).
#
# An evicted entry or blob is a miss or a cache-gap rebuild for ripple,
# never a wrong answer. DAYS 0 prunes everything but tag records. Needs
# GNU find, grep, comm, jq. Prints what it kept and deleted.
set -eu
root=${1:?usage: prune.sh ROOT DAYS}
days=${2:?usage: prune.sh ROOT DAYS}
case $days in *[!0-9]*|'') echo "prune: DAYS is a number" >&2; exit 2 ;; esac
[ -d "$root" ] || { echo "prune: no folder $root" >&2; exit 2; }
cut=$(( $(date +%s) - days * 86400 ))
keep=$(mktemp)
trap 'rm -f "$keep" "$keep.old" "$keep.gone" "$keep.tags" "$keep.recs" "$keep.commits"' EXIT

hashes() {	# the 64-hex digests an AC entry names (REAPI: hex strings)
	grep -aoE '[0-9a-f]{64}' "$1" | sort -u
}
tag_record() {	# 0 when the entry's record is one a release needs
	grep -aqE '"tag":"[^"]|"ref":"refs/tags/' "$1" && return 0
	grep -aqFf "$keep.commits" "$1" && return 0
	hashes "$1" | grep -qxFf "$keep.tags"
}
old() { [ "$(stat -c %Y "$1")" -le "$cut" ]; }

ac_kept=0 ac_gone=0 tags=0 d_gone=0 cas_gone=0 cas_kept=0
# The commits tags point at: those of records written for a tag, inline
# in trusted entries or as CAS blobs. Every trusted record made at such a
# commit stays (main's CI there too: a release's version group needs
# them); record blobs, one jq pass: NAME COMMIT TAG REF.
grep -l --null '"format":"ripple-record"' "$root"/cas/* 2>/dev/null |
	xargs -0 -r jq -r '[input_filename, .provenance.commit // "",
		.provenance.tag // "", .provenance.ref // ""] | @tsv' \
	2>/dev/null | sed 's|^[^\t]*/||' > "$keep.recs" || true
awk -F '\t' '$3 != "" || $4 ~ /^refs\/tags\// { print $2 }' "$keep.recs" \
	> "$keep.commits"
for e in "$root"/ac/*; do
	[ -f "$e" ] || continue
	grep -aqE '"tag":"[^"]|"ref":"refs/tags/' "$e" &&
		grep -aoE '"commit":"[0-9a-f]{40}"' "$e" | cut -d'"' -f4
done >> "$keep.commits"
sort -u -o "$keep.commits" "$keep.commits"
# Record blobs at those commits, and the commits as they appear inline.
awk -F '\t' 'NR == FNR { c[$1] = 1; next } ($2 in c) { print $1 }' \
	"$keep.commits" "$keep.recs" | sort -u > "$keep.tags"
sed 's/.*/"commit":"&"/' "$keep.commits" > "$keep.c"
mv "$keep.c" "$keep.commits"
[ -s "$keep.commits" ] || echo '"commit":"-"' > "$keep.commits"
if [ -d "$root/d" ]; then
	d_gone=$(find "$root/d" -type f ! -newermt "@$cut" -print -delete |
		wc -l)
fi
for e in "$root"/ac/* "$root"/d/*/ac/*; do
	[ -f "$e" ] || continue
	case $e in
	"$root"/ac/*)
		if tag_record "$e"; then
			tags=$((tags + 1))
		elif old "$e"; then
			rm -f "$e"
			ac_gone=$((ac_gone + 1))
			continue
		fi ;;
	esac
	ac_kept=$((ac_kept + 1))
	hashes "$e" >> "$keep"
done
sort -u -o "$keep" "$keep"
# Old blobs that no staying entry names: (old) minus (kept), by comm.
find "$root/cas" -type f ! -newermt "@$cut" -printf '%f\n' 2>/dev/null |
	sort > "$keep.old"
comm -23 "$keep.old" "$keep" > "$keep.gone"
cas_gone=$(wc -l < "$keep.gone")
(cd "$root/cas" && xargs -r rm -f < "$keep.gone")
cas_kept=$(find "$root/cas" -type f | wc -l)
echo "prune $root (older than $days days): ac kept $ac_kept ($tags of tags' commits)," \
	"deleted $ac_gone; d/ deleted $d_gone; cas kept $cas_kept, deleted $cas_gone"
