export { checkFormOrigin, type FormOriginRefusal } from './check-form-origin';
export { confirmationPage, messagePage, sendPage, type DecisionPage } from './decision-pages';
export { emailChannel, emailDecisionRoute, emailExtension, type EmailExtensionOptions } from './email-extension';
export { emailExtensionFromEnvironment } from './email-extension-from-environment';
export { parseDecisionForm, reasonLengthLimit, type DecisionForm } from './parse-decision-form';
export { LocalUsedTokenStore, SharedUsedTokenStore, type UsedTokenStore } from './used-token-store';
