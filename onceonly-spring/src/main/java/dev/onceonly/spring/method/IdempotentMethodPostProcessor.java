package dev.onceonly.spring.method;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;

/**
 * Proxies every bean with an {@link IdempotentMethod}, as Spring does for {@code @Async}: with the class proxied (no
 * interface needed), and with OnceOnly's advice in front of the bean's other advice, so that the transaction
 * OnceOnly begins in transactional mode is the one the method's {@code @Transactional} joins.
 */
public final class IdempotentMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    public IdempotentMethodPostProcessor() {
        setProxyTargetClass(true);
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, IdempotentMethod.class, true),
                new IdempotentMethodInterceptor(beanFactory.getBeanProvider(IdempotentMethods.class)));
    }
}
