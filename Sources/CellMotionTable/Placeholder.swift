// Placeholder: replaced by the table module.
