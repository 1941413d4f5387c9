// Note names a narrow view must still show whole, as a real vault names notes: one long word
// with no space to break at, Arabic, Hebrew with emoji, a URL turned into a file name. The dial
// bench seeds them (longTitles=1), each about CRDT merges, so "crdt merge" finds them all.
export const LONG_TITLES = [
  "Conflictfreereplicateddatatypesmergesemanticsandtombstonegarbagecollection",
  "كيف تدمج أنواع البيانات المتقاربة التعديلات المتزامنة دون خادم مركزي",
  "מיזוג CRDT: סנכרון בין מכשירים ללא שרת 🎉",
  "https-automerge-org-docs-under-the-hood-merge-rules-and-conflicts",
];
