/* placeholder */
typedef int ripple_source_test_placeholder;
