//! Unknown-field detection for `fieldValidation=Strict`.
